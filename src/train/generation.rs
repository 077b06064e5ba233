//! The steps of one generation (master beam, samples, targets, fit), each
//! one [`step`]: skipped when its result is already on disk, else computed
//! and written atomically. See the [module doc](super) for what each step
//! does and why; step 2 is in [`super::samples`].

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::data::{self, Sampled};
use super::folder::{
    append_log, generation_dir, net_path, plot_path, read_json, read_step_seconds,
    record_step_seconds, run_seconds, step, Rescale, StepFile, FAR_BIN,
};
use super::{
    fit, plot, Config, GateFigures, Generation, Master, Phase, TrainError, TrainObserver, Trained,
    Units,
};
use crate::enemy::EnemyKind;
use crate::evaluate::{Evaluator, Lookahead};
use crate::folder::atomic::write_atomic;
use crate::folder::io;
use crate::heuristic::{Knewjade, Weights};
use crate::launch::{self, Folder};
use crate::nnue::{Layout, Net, Rng, Sample};
use crate::run;
use crate::search::small::{self, Survival};
use crate::search::{Adversary, RunResult, Search};
use crate::stats::{mean_sd, Divisor};

pub(super) struct Generations<'a> {
    pub(super) dir: &'a Path,
    pub(super) config: &'a Config,
    pub(super) threads: usize,
    pub(super) observer: &'a dyn TrainObserver,
}

fn create_dir(dir: &Path) -> Result<(), TrainError> {
    Ok(fs::create_dir_all(dir).map_err(io(dir))?)
}

impl Generations<'_> {
    pub(super) fn run(&self, generations: u32) -> Result<Trained, TrainError> {
        self.check_start_net()?;
        for g in 0..generations {
            let path = generation_dir(self.dir, g).join("generation.json");
            let (summary, fresh) = step(&path, || {
                let summary = self.generation(g)?;
                self.log(&serde_json::json!({"event": "generation", "summary": summary}))?;
                Ok(summary)
            })?;
            if fresh {
                self.observer.generation(&summary);
                self.plot()?;
            }
        }
        // The last net's own master beam, so that it has a score too.
        let last_master = if generations > 0 {
            Some(self.master(generations)?)
        } else {
            None
        };
        // Redrawn from the files in any case (so `--generations 0` redraws
        // the picture of a folder made by an older build).
        if generation_dir(self.dir, 0).is_dir() {
            self.plot()?;
        }
        let last_net = match self.config.learning {
            Some(_) => self
                .champion_before(generations)?
                .map(|g| net_path(self.dir, g)),
            None => generations.checked_sub(1).map(|g| net_path(self.dir, g)),
        }
        .filter(|p| p.exists());
        Ok(Trained {
            generations: super::folder::generations(self.dir)?,
            last_master,
            last_net,
        })
    }

    /// Refuses a folder whose generation 0 was played by a net but whose
    /// start net (`from.f32`) is not here: a copy of the small files leaves
    /// a shipped start net out (`scripts/snapshot-train.sh`), and without
    /// it generation 0 would be taken for one that learns the heuristic.
    fn check_start_net(&self) -> Result<(), TrainError> {
        let from = self.dir.join(super::folder::FROM_F32);
        if from.exists() {
            return Ok(());
        }
        let Some(m) = read_json::<Master>(&self.gen_dir(0).join("master.json"))? else {
            return Ok(());
        };
        match m.evaluator.split(';').any(|kv| kv.starts_with("net=")) {
            false => Ok(()),
            true => Err(TrainError::Config {
                path: from,
                why: format!(
                    "missing, though generation 0's master beam was played by a net ({}): copy the \
                     start net back (data/train/README.md names the shipped net a copy left out)",
                    m.evaluator
                ),
            }),
        }
    }

    /// One step of generation `g` ([`step`]), reported to the observer as
    /// `phase` when it was done before.
    pub(super) fn step<T: StepFile>(
        &self,
        g: u32,
        phase: Phase,
        path: &Path,
        compute: impl FnOnce() -> Result<T, TrainError>,
    ) -> Result<T, TrainError> {
        let started = Instant::now();
        let (value, fresh) = step(path, compute)?;
        // A finished generation's data made again for a later one's window
        // (a copy of the folder's small files lacks it) leaves the costs
        // its summary was made from as they were.
        if fresh && !self.gen_dir(g).join("generation.json").exists() {
            let seconds = started.elapsed().as_secs_f64();
            record_step_seconds(self.dir, g, phase.name(), seconds)?;
        } else {
            self.observer.done_before(g, phase);
        }
        Ok(value)
    }

    /// The seconds the steps `phases` took when they were computed, from
    /// `recorded` (`seconds.json`), or `fallback` (the time this process
    /// spent on them) when one was not recorded.
    fn step_seconds(recorded: &BTreeMap<String, f64>, phases: &[Phase], fallback: f64) -> f64 {
        phases
            .iter()
            .map(|p| recorded.get(p.name()).copied())
            .sum::<Option<f64>>()
            .unwrap_or(fallback)
    }

    pub(super) fn gen_dir(&self, g: u32) -> PathBuf {
        generation_dir(self.dir, g)
    }

    /// The random numbers of generation `g`'s draws, one `stream` per
    /// kind of draw. `Rng::new` sets the state's lowest bit, so the plain
    /// loop's `seed ^ stream ^ g` gives generations `2k` and `2k + 1` the
    /// same numbers: harmless there, where every generation samples its own
    /// master beam, and kept so that its folders (the shipped net's) are
    /// made again bit for bit. The learning loop takes a master beam over
    /// while the champion stands, and then those two generations drew the
    /// same samples (measured: `gen-004` and `gen-005` of
    /// `data/train/learn-1`), so its seeds are hashed first.
    pub(super) fn rng(&self, stream: u64, g: u32) -> Rng {
        let seed = self.config.seed ^ (stream << 32) ^ u64::from(g);
        match self.config.learning {
            Some(_) => Rng::new(crate::well::mix64(seed)),
            None => Rng::new(seed),
        }
    }

    /// Whether generation `g` learns the heuristic (the first generation of
    /// a folder started without `--from`).
    pub(super) fn learns_heuristic(&self, g: u32) -> bool {
        super::folder::learns_heuristic(self.dir, g)
    }

    /// The directory of the master beam generation `g` samples from (its
    /// own, or an earlier one taken over: [`Self::master_source`]).
    pub(super) fn master_dir(&self, g: u32) -> Result<PathBuf, TrainError> {
        Ok(self.gen_dir(self.master_source(g)?).join("master"))
    }

    fn generation(&self, g: u32) -> Result<Generation, TrainError> {
        create_dir(&self.gen_dir(g))?;
        let master = self.master(g)?;
        let started = Instant::now();
        let samples = self.samples(g, &master)?;
        let (targets, died) = self.targets(g, &samples)?;
        self.window_data(g)?;
        self.reach_step(g)?;
        let data_elapsed = started.elapsed().as_secs_f64();
        let wide: Vec<f64> = targets.iter().map(|&x| f64::from(x)).collect();
        let (mean, std) = mean_sd(&wide, Divisor::Population);
        if std.is_nan() || std <= 1e-6 {
            return Err(TrainError::FlatTargets {
                generation: g,
                count: targets.len(),
                value: mean,
                std,
            });
        }
        let started = Instant::now();
        let fitted = self.fit(g, &samples, &targets)?;
        let fit_elapsed = started.elapsed().as_secs_f64();
        let recorded = read_step_seconds(self.dir, g)?;
        // The reach step is data too, where the reach term made one.
        let data_phases: &[Phase] = match recorded.contains_key(Phase::Reach.name()) {
            true => &[Phase::Samples, Phase::Targets, Phase::Reach],
            false => &[Phase::Samples, Phase::Targets],
        };
        let data_seconds = Self::step_seconds(&recorded, data_phases, data_elapsed);
        let fit_seconds = Self::step_seconds(&recorded, &[Phase::Fit], fit_elapsed);
        let kept = fitted
            .epochs
            .iter()
            .find(|e| e.epoch == fitted.best_epoch)
            .copied()
            .expect("the kept epoch is listed");
        let gate = self.gate(g)?;
        let gate_seconds = gate.as_ref().map_or(0.0, |r| r.seconds);
        let gate = match gate {
            Some(r) => Some(GateFigures {
                candidate_pieces: r.candidate.pieces_mean,
                candidate_lines: r.candidate.lines_mean,
                champion_pieces: r.champion_figures.pieces_mean,
                champion_lines: r.champion_figures.lines_mean,
                kept: r.kept,
                champion: r.champion_after(),
                seconds: r.seconds,
                wide_lines: r.wide.as_ref().map(|w| w.lines()),
                steady: r.steady.clone(),
            }),
            None => None,
        };
        Ok(Generation {
            generation: g,
            core_seconds: (master.seconds + data_seconds + gate_seconds) * self.threads as f64
                + fit_seconds,
            master,
            samples: samples.len(),
            wide_samples: self.wide_count(g)?,
            died,
            target_mean: mean,
            target_std: std,
            data_seconds,
            fit_seconds,
            epochs: fitted.epochs.last().map_or(0, |e| e.epoch),
            best_epoch: fitted.best_epoch,
            train_loss: kept.train_loss,
            validation_loss: kept.validation_loss,
            held_order: fitted.held_order,
            threads: self.threads,
            gate,
        })
    }

    /// The samples and targets of the earlier generations generation `g`'s
    /// fit reads ([`Self::window`]), made again where they are missing: a
    /// copy of a training folder's small files, gone on with on another
    /// machine, has none. Each step is seeded, so they are the files the
    /// generation made (the master beam played again if need be:
    /// [`Self::master_on_disk`]).
    fn window_data(&self, g: u32) -> Result<(), TrainError> {
        for h in self.window(g).into_iter().filter(|&h| h < g) {
            let gen = self.gen_dir(h);
            if gen.join("samples.bin").exists() && gen.join("targets.bin").exists() {
                continue;
            }
            let master = self.master(h)?;
            let samples = self.samples(h, &master)?;
            self.targets(h, &samples)?;
        }
        Ok(())
    }

    /// Step 1: the master beam of generation `g` (with the learning loop,
    /// an earlier generation's when the champion has not changed since).
    fn master(&self, g: u32) -> Result<Master, TrainError> {
        create_dir(&self.gen_dir(g))?;
        let path = self.gen_dir(g).join("master.json");
        let source = self.master_source(g)?;
        let (m, fresh) = step(&path, || {
            if source == g {
                return self.play_master(g);
            }
            let path = self.gen_dir(source).join("master.json");
            let m: Master = read_json(&path)?.ok_or_else(|| TrainError::Config {
                path,
                why: "missing (its generation's master beam wrote it)".into(),
            })?;
            Ok(Master {
                seconds: 0.0,
                reused_from: Some(source),
                ..m
            })
        })?;
        if !fresh {
            self.observer.done_before(g, Phase::Master);
            return Ok(m);
        }
        self.log(&serde_json::json!({"event": "master", "generation": g, "master": m}))?;
        self.observer.master(g, &m);
        self.plot()?;
        Ok(m)
    }

    /// Plays (or goes on with) the master beam of generation `g`.
    fn play_master(&self, g: u32) -> Result<Master, TrainError> {
        create_dir(&self.gen_dir(g))?;
        self.observer.phase(g, Phase::Master, 0);
        let heuristic;
        let net;
        let evaluator: &dyn Evaluator = match self.champion_evaluator(g)? {
            None => {
                heuristic = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
                &heuristic
            }
            Some(e) => {
                net = Lookahead::new(e, self.config.quiescent);
                &net
            }
        };
        let search = Search::new(
            self.master_width(g)?,
            evaluator,
            Adversary::new(EnemyKind::Hatetris),
        );
        let dir = self.gen_dir(g).join("master");
        let started = Instant::now();
        // A copy of the champion's wide game counts nothing it played
        // before (the gate counted it); a beam killed half-way, its part.
        let before = match self.take_over_wide_game(g, search.width, &dir)? {
            true => 0.0,
            false => run_seconds(&dir),
        };
        let result = self.resume_or_start(&dir, &search, None)?;
        Ok(Master {
            evaluator: search.settings().evaluator.canonical(),
            score: result.best.score,
            best_depth: result.best.depth,
            depth: result.depth,
            exhausted: result.exhausted,
            seconds: before + started.elapsed().as_secs_f64(),
            reused_from: None,
        })
    }

    /// The run folder of the master beam generation `g` samples from, its
    /// whole game on disk. A copy of a training folder's small files
    /// (`scripts/snapshot-train.sh`, gone on with on another machine) has the
    /// beam's `master.json` but not its run folder (hundreds of megabytes
    /// at width 100,000), so the beam is played again: the same net, width
    /// and search, so the same depth files, which the score and depths
    /// `master.json` records are held against.
    pub(super) fn master_on_disk(&self, g: u32) -> Result<PathBuf, TrainError> {
        let dir = self.master_dir(g)?;
        let whole = run::read_manifest(&dir)
            .is_ok_and(|m| super::folder::game_over(&m, self.config.master_depth));
        if whole {
            return Ok(dir);
        }
        let source = self.master_source(g)?;
        let path = self.gen_dir(source).join("master.json");
        let recorded: Master = read_json(&path)?.ok_or_else(|| TrainError::Config {
            path: path.clone(),
            why: "missing (its generation's master beam wrote it)".into(),
        })?;
        let played = self.play_master(source)?;
        let beam = |m: &Master| (m.score, m.best_depth, m.depth, m.exhausted);
        if beam(&played) != beam(&recorded) {
            return Err(TrainError::Config {
                path,
                why: format!(
                    "the master beam played again scored {} at depth {} and ended at depth {}, \
                     not the {} at depth {}, ended at depth {}, recorded here",
                    played.score,
                    played.best_depth,
                    played.depth,
                    recorded.score,
                    recorded.best_depth,
                    recorded.depth
                ),
            });
        }
        Ok(dir)
    }

    /// The master beam's run folder `dir`, resumed when its manifest is
    /// there, else started afresh (a folder killed before its manifest held
    /// no run yet).
    pub(super) fn resume_or_start(
        &self,
        dir: &Path,
        search: &Search,
        from: Option<&run::start::Start>,
    ) -> Result<RunResult, TrainError> {
        let opts = launch::options(self.config.master_depth, self.threads, None);
        Ok(launch::run_from(
            dir,
            search,
            from,
            &opts,
            self.observer,
            Folder::Either,
        )?)
    }

    /// Step 3: each sample's target, and how many training beams died.
    fn targets(&self, g: u32, samples: &[Sampled]) -> Result<(Vec<f32>, usize), TrainError> {
        let path = self.gen_dir(g).join("targets.bin");
        let partial = self.gen_dir(g).join("targets-partial.bin");
        let died_partial = self.gen_dir(g).join("died-partial.bin");
        let far_partial = self.gen_dir(g).join("far-partial.bin");
        let targets = self.step(g, Phase::Targets, &path, || {
            self.observer.phase(g, Phase::Targets, samples.len() as u64);
            if self.learns_heuristic(g) {
                self.heuristic_targets(g, samples)
            } else {
                self.beam_targets(g, samples, &partial, &died_partial, &far_partial)
            }
        })?;
        for p in [&partial, &died_partial, &far_partial] {
            let _ = fs::remove_file(p);
        }
        let lost = self.config.lost_value as f32;
        let died = match self.learns_heuristic(g) {
            true => 0,
            false => targets.iter().filter(|&&x| x == lost).count(),
        };
        Ok((targets, died))
    }

    /// A later generation's targets: a small search from each sample with
    /// the champion's net, saved every [`CHUNK`] samples to `partial` (and
    /// resumed from it). With the learning loop, the piece each dying beam
    /// died at (0: it survived; with [`super::Learning::life_pieces`], the
    /// piece a surviving beam died at after its last, up to that horizon)
    /// goes to `died.bin` (and `died_partial`) before the targets are
    /// written; with the life term, each sample's best value at its horizon
    /// (or its own target when its beam did not reach it) to `far.bin` (and
    /// `far_partial`), for the fit's [`super::Learning::far_share`].
    fn beam_targets(
        &self,
        g: u32,
        samples: &[Sampled],
        partial: &Path,
        died_partial: &Path,
        far_partial: &Path,
    ) -> Result<Vec<f32>, TrainError> {
        let lost = self.config.lost_value as f32;
        let eval = self
            .champion_evaluator(g)?
            .expect("a generation after the first starts from a net");
        let keep_died = self.config.learning.is_some();
        let load = |p: &Path| -> Result<Vec<f32>, TrainError> {
            Ok(if p.exists() {
                data::load_targets(p)?
            } else {
                Vec::new()
            })
        };
        let horizon = self.config.learning.as_ref().map_or(0, |l| l.life_pieces);
        let keep_far = keep_died && horizon > self.config.beam.pieces;
        let mut targets = load(partial)?;
        let mut died = load(died_partial)?;
        let mut far = load(far_partial)?;
        // The partial files are written far, died, then targets: a kill
        // between two leaves the later ones shorter, never longer.
        let mut done = targets.len().min(samples.len());
        if keep_died {
            done = done.min(died.len());
        }
        if keep_far {
            done = done.min(far.len());
        }
        targets.truncate(done);
        died.truncate(done);
        far.truncate(done);
        self.observer.advanced(targets.len() as u64);
        let shape = self.config.beam;
        let lookahead = self
            .config
            .beam_lookahead
            .then(|| Lookahead::new(&eval, self.config.quiescent));
        let ranker: &dyn Evaluator = match &lookahead {
            Some(l) => l,
            None => &eval,
        };
        while targets.len() < samples.len() {
            let chunk = &samples[targets.len()..(targets.len() + CHUNK).min(samples.len())];
            let values: Vec<[f32; 3]> = chunk
                .par_iter()
                .map(|s| {
                    let value = |w: &crate::well::Well| eval.value(w);
                    let past = small::survive_past(
                        &s.well,
                        shape,
                        horizon,
                        EnemyKind::Hatetris,
                        ranker,
                        value,
                    );
                    let (target, at) = match past.survival {
                        Survival::Died { at } => (lost, at),
                        Survival::Survived { best } => {
                            (best as f32, past.later_death().unwrap_or(0))
                        }
                    };
                    let far = past.far_best().map_or(target, |v| v as f32);
                    self.observer.advanced(1);
                    [target, at as f32, far]
                })
                .collect();
            targets.extend(values.iter().map(|v| v[0]));
            died.extend(values.iter().map(|v| v[1]));
            far.extend(values.iter().map(|v| v[2]));
            if keep_far {
                data::save_targets(far_partial, &far)?;
            }
            if keep_died {
                data::save_targets(died_partial, &died)?;
            }
            data::save_targets(partial, &targets)?;
        }
        if keep_far {
            data::save_targets(&self.gen_dir(g).join(FAR_BIN), &far)?;
        }
        if keep_died {
            data::save_targets(&self.gen_dir(g).join("died.bin"), &died)?;
        }
        Ok(targets)
    }

    /// The map of the surviving targets to mean 0 and standard deviation 1
    /// (`rescale.json`, made once from the targets), or `None` when the
    /// settings keep the raw values or this generation learns the
    /// heuristic. Without it the values drift: each generation's target is
    /// the previous net's value after ten more adversarial pieces, so the
    /// survivors' values sink towards the lost value generation after
    /// generation, and the net's resolution among good wells with them
    /// (measured without it: the targets' mean went -0.6, -0.6, -1.3, -2.1,
    /// -2.3 and the master beams 59, 66, 79, 68, 39 lines).
    fn rescale(&self, g: u32, targets: &[f32]) -> Result<Option<Rescale>, TrainError> {
        if !self.config.standardise || self.learns_heuristic(g) {
            return Ok(None);
        }
        let path = self.gen_dir(g).join("rescale.json");
        let (r, _) = step(&path, || {
            let lost = self.config.lost_value as f32;
            let survived: Vec<f64> = targets
                .iter()
                .filter(|&&t| t != lost)
                .map(|&t| f64::from(t))
                .collect();
            let (mean, std) = mean_sd(&survived, Divisor::Population);
            Ok(if std > 1e-9 {
                Rescale {
                    scale: (1.0 / std) as f32,
                    shift: (-mean / std) as f32,
                }
            } else {
                Rescale {
                    scale: 1.0,
                    shift: 0.0,
                }
            })
        })?;
        Ok(Some(r))
    }

    /// Generation 0's targets: the heuristic's standardised values. Fixes
    /// the value units (`units.json`).
    fn heuristic_targets(&self, g: u32, samples: &[Sampled]) -> Result<Vec<f32>, TrainError> {
        let knewjade = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
        let h = knewjade.heuristic();
        let costs: Vec<f64> = samples.par_iter().map(|s| h.cost(&s.well, 0.0)).collect();
        self.observer.advanced(samples.len() as u64);
        let (mean, spread) = mean_sd(&costs, Divisor::Population);
        let spread = if spread > 0.0 { spread } else { 1.0 };
        let units = Units {
            mean,
            spread,
            line_weight: -h.weights().score / spread,
        };
        super::folder::write_json(&self.gen_dir(g).join("units.json"), &units)?;
        Ok(costs
            .iter()
            .map(|c| (-(c - mean) / spread) as f32)
            .collect())
    }

    /// Step 4: the next net, fitted to the targets.
    fn fit(&self, g: u32, samples: &[Sampled], targets: &[f32]) -> Result<fit::Fitted, TrainError> {
        let path = self.gen_dir(g).join("fit.json");
        self.step(g, Phase::Fit, &path, || {
            self.fit_afresh(g, samples, targets)
        })
    }

    /// Fits the next net (written by the step: see [`fit::Fitted`]'s
    /// [`StepFile`]).
    fn fit_afresh(
        &self,
        g: u32,
        samples: &[Sampled],
        targets: &[f32],
    ) -> Result<fit::Fitted, TrainError> {
        let dir = self.gen_dir(g);
        let rescale = self.rescale(g, targets)?;
        let mut config = self.config.fit;
        let start = match self.champion_net(g)? {
            Some(mut net) => {
                // In the units the targets are standardised to.
                if let Some(r) = rescale {
                    net.rescale(r.scale, r.shift);
                }
                net
            }
            None => {
                // A blend is a step from a champion, not from random weights.
                config.blend = 1.0;
                let units: Units =
                    read_json(&dir.join("units.json"))?.ok_or_else(|| TrainError::Config {
                        path: dir.join("units.json"),
                        why: "missing (the targets of generation 0 write it)".into(),
                    })?;
                Net::new(
                    self.config.hidden,
                    Layout::Shared,
                    units.line_weight,
                    self.config.seed ^ u64::from(g),
                )?
            }
        };
        // More units for the fit to use: the start's value unchanged.
        let start = match config.widen {
            0 => start,
            units => start.widened(units, self.config.seed ^ mix(g) ^ WIDEN_STREAM)?,
        };
        let lost = self.config.lost_value as f32;
        let batch: Vec<Sample> = match self.window_batch(g)? {
            Some(batch) => batch,
            None => samples
                .iter()
                .zip(targets)
                .map(|(s, &t)| Sample {
                    well: s.well,
                    target: match rescale {
                        Some(r) if t != lost => r.scale * t + r.shift,
                        _ => t,
                    },
                    group: s.depth,
                })
                .collect(),
        };
        self.observer
            .phase(g, Phase::Fit, u64::from(self.config.fit.max_epochs));
        let mut log_error = None;
        let fitted = fit::fit(start, &batch, &config, self.config.seed ^ mix(g), |e| {
            self.observer.epoch(g, e);
            if e.epoch > 0 {
                self.observer.advanced(1);
            }
            if let Err(err) =
                self.log(&serde_json::json!({"event": "epoch", "generation": g, "epoch": e}))
            {
                log_error.get_or_insert(err);
            }
        });
        match log_error {
            Some(err) => Err(err),
            None => Ok(fitted),
        }
    }

    /// Appends one JSON line to the log.
    pub(super) fn log(&self, value: &serde_json::Value) -> Result<(), TrainError> {
        append_log(self.dir, value)
    }

    fn plot(&self) -> Result<(), TrainError> {
        redraw(self.dir)
    }
}

/// Targets are computed and saved in chunks of this many samples.
const CHUNK: usize = 2048;

fn mix(g: u32) -> u64 {
    crate::well::mix64(u64::from(g) + 0x7461_7267)
}

/// Set apart the draws of a widened start's new units
/// ([`fit::FitConfig::widen`]) from the fit's own.
const WIDEN_STREAM: u64 = 0x7769_6465;

/// Redraws the pictures of the training folder `dir` (`progress.svg` and
/// `progress.png`) from its files; a trainer may be working in it.
pub fn redraw(dir: &Path) -> Result<(), TrainError> {
    let path = plot_path(dir);
    let svg = plot::draw(dir, &path.with_extension("png"))?;
    Ok(write_atomic(&path, svg.as_bytes()).map_err(io(&path))?)
}
