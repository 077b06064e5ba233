//! The steps of one generation (master beam, samples, targets, fit), each
//! skipped when its result is already on disk: see the [module
//! doc](super) for what each step does and why.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::data::{self, Sampled};
use super::folder::{
    append_log, generation_dir, net_path, plot_path, read_json, write_json, FitRecord, FROM_F32,
};
use super::{
    beam, fit, io_error, plot, Config, Generation, Master, Phase, Report, TrainError,
    TrainObserver, Units,
};
use crate::enemy::mild_choice;
use crate::evaluate::{best_along_chain, Evaluator, Lookahead};
use crate::folder::atomic::write_atomic;
use crate::heuristic::{Knewjade, Weights};
use crate::movegen::MoveGen;
use crate::nnue::{Layout, Net, NetEvaluator, QuantNet, Rng, Sample};
use crate::run;
use crate::run::store::DepthFile;
use crate::search::{self, Adversary, Options, Search};
use crate::well::Well;
use crate::EnemyKind;

pub(super) struct Generations<'a> {
    pub(super) dir: &'a Path,
    pub(super) config: &'a Config,
    pub(super) threads: usize,
    pub(super) observer: &'a dyn TrainObserver,
}

impl Generations<'_> {
    pub(super) fn run(&self, generations: u32) -> Result<Report, TrainError> {
        for g in 0..generations {
            if generation_dir(self.dir, g).join("generation.json").exists() {
                continue;
            }
            let summary = self.generation(g)?;
            self.log(&serde_json::json!({"event": "generation", "summary": summary}))?;
            write_json(
                &generation_dir(self.dir, g).join("generation.json"),
                &summary,
            )?;
            self.observer.generation(&summary);
            self.plot()?;
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
        let last_net = generations
            .checked_sub(1)
            .map(|g| net_path(self.dir, g))
            .filter(|p| p.exists());
        Ok(Report {
            generations: super::folder::generations(self.dir)?,
            last_master,
            last_net,
        })
    }

    fn gen_dir(&self, g: u32) -> PathBuf {
        generation_dir(self.dir, g)
    }

    /// Whether generation `g` learns the heuristic (the first generation of
    /// a folder started without `--from`).
    fn learns_heuristic(&self, g: u32) -> bool {
        g == 0 && !self.dir.join(FROM_F32).exists()
    }

    /// The f32 net generation `g` starts from, if it starts from one.
    fn start_net(&self, g: u32) -> Result<Option<Net>, TrainError> {
        if g == 0 {
            let from = self.dir.join(FROM_F32);
            return Ok(if from.exists() {
                Some(Net::load(&from)?)
            } else {
                None
            });
        }
        Ok(Some(Net::load(&self.gen_dir(g - 1).join("net.f32"))?))
    }

    /// The quantised form of the net generation `g` starts from.
    fn start_evaluator(&self, g: u32) -> Result<Option<NetEvaluator>, TrainError> {
        Ok(match self.start_net(g)? {
            Some(net) => Some(NetEvaluator::new(QuantNet::from_net(&net)?)),
            None => None,
        })
    }

    fn generation(&self, g: u32) -> Result<Generation, TrainError> {
        fs::create_dir_all(self.gen_dir(g)).map_err(io_error(&self.gen_dir(g)))?;
        let master = self.master(g)?;
        let started = Instant::now();
        let samples = self.samples(g, &master)?;
        let (targets, died) = self.targets(g, &samples)?;
        let data_seconds = started.elapsed().as_secs_f64();
        let (mean, std) = mean_std(&targets);
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
        let fit_seconds = started.elapsed().as_secs_f64();
        let kept = fitted
            .epochs
            .iter()
            .find(|e| e.epoch == fitted.best_epoch)
            .copied()
            .expect("the kept epoch is listed");
        Ok(Generation {
            generation: g,
            core_seconds: (master.seconds + data_seconds) * self.threads as f64 + fit_seconds,
            master,
            samples: samples.len(),
            died,
            target_mean: mean,
            target_std: std,
            data_seconds,
            fit_seconds,
            epochs: fitted.epochs.last().map_or(0, |e| e.epoch),
            best_epoch: fitted.best_epoch,
            train_loss: kept.train_loss,
            validation_loss: kept.validation_loss,
            threads: self.threads,
        })
    }

    /// Step 1: the master beam of generation `g`.
    fn master(&self, g: u32) -> Result<Master, TrainError> {
        let path = self.gen_dir(g).join("master.json");
        if let Some(m) = read_json::<Master>(&path)? {
            self.observer.done_before(g, Phase::Master);
            return Ok(m);
        }
        fs::create_dir_all(self.gen_dir(g)).map_err(io_error(&self.gen_dir(g)))?;
        self.observer.phase(g, Phase::Master, 0);
        let heuristic;
        let net;
        let evaluator: &dyn Evaluator = match self.start_evaluator(g)? {
            None => {
                heuristic = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
                &heuristic
            }
            Some(e) => {
                net = Lookahead::new(e, self.config.quiescent);
                &net
            }
        };
        let search = Search {
            width: self.config.master_width,
            evaluator,
            adversary: Adversary::new(EnemyKind::Hatetris),
        };
        let opts = Options {
            max_depth: self.config.master_depth,
            threads: self.threads,
            release_memory: None,
            asked_threads: None,
            stop: None,
            expander: None,
        };
        let dir = self.gen_dir(g).join("master");
        let started = Instant::now();
        let before: f64 = self.partial_master_seconds(&dir);
        let result = if run::manifest_path(&dir).exists() {
            search::resume(&dir, &search, &opts, self.observer)?
        } else {
            if dir.exists() {
                // Killed before its manifest: nothing in it is a run yet.
                fs::remove_dir_all(&dir).map_err(io_error(&dir))?;
            }
            search::start(&dir, &search, &opts, self.observer)?
        };
        let m = Master {
            evaluator: search.settings().evaluator.canonical(),
            score: result.best.score,
            best_depth: result.best.depth,
            depth: result.depth,
            exhausted: result.exhausted,
            seconds: before + started.elapsed().as_secs_f64(),
        };
        drop(result);
        write_json(&path, &m)?;
        self.log(&serde_json::json!({"event": "master", "generation": g, "master": m}))?;
        self.observer.master(g, &m);
        self.plot()?;
        Ok(m)
    }

    /// The seconds a killed master beam had already spent (from its
    /// manifest's depths).
    fn partial_master_seconds(&self, dir: &Path) -> f64 {
        run::read_manifest(dir)
            .map(|m| m.depths.iter().map(|d| d.elapsed_s).sum())
            .unwrap_or(0.0)
    }

    /// Step 2: wells from every depth of the master beam, the same count
    /// from each.
    fn samples(&self, g: u32, master: &Master) -> Result<Vec<Sampled>, TrainError> {
        let path = self.gen_dir(g).join("samples.bin");
        if path.exists() {
            self.observer.done_before(g, Phase::Samples);
            return Ok(data::load_samples(&path)?);
        }
        let depths = master.depth;
        if depths == 0 {
            return Err(TrainError::NoSamples(g));
        }
        self.observer.phase(g, Phase::Samples, u64::from(depths));
        let dir = self.gen_dir(g).join("master");
        let want = if self.learns_heuristic(g) {
            self.config.heuristic_samples.max(self.config.samples)
        } else {
            self.config.samples
        };
        let mut rng = Rng::new(self.config.seed ^ (0x5A3D_u64 << 32) ^ u64::from(g));
        let mut out = Vec::with_capacity(want * (1 + self.config.children));
        let mut children = Vec::new();
        for d in 1..=depths {
            let quota =
                want / depths as usize + usize::from((d as usize) <= want % depths as usize);
            let file = DepthFile::open(&run::depth_path(&dir, d))?;
            let mut indices: Vec<u32> = (0..file.len() as u32).collect();
            if quota < indices.len() {
                // The first `quota` of a partial Fisher-Yates shuffle.
                for i in 0..quota {
                    let j = i + rng.below(indices.len() - i);
                    indices.swap(i, j);
                }
                indices.truncate(quota);
                indices.sort_unstable();
            }
            for w in file.wells_at(&indices)? {
                let well = w.unpack();
                out.push(Sampled { well, depth: d });
                let gen = MoveGen::new(&well);
                children.clear();
                gen.children(mild_choice(&gen), &mut children);
                for _ in 0..self.config.children.min(children.len()) {
                    let c = children.swap_remove(rng.below(children.len()));
                    out.push(Sampled {
                        well: c.well,
                        depth: d + 1,
                    });
                }
            }
            self.observer.advanced(1);
        }
        if self.config.chain_points {
            out = self.with_chain_points(g, out)?;
        }
        data::save_samples(&path, &out)?;
        Ok(out)
    }

    /// Each sample followed by the best point of its lookahead chains under
    /// the current evaluator, where the chains lead anywhere: the lookahead
    /// takes the lowest cost along a chain, so a net that overrates such
    /// wells is picked up on exactly its errors.
    fn with_chain_points(&self, g: u32, samples: Vec<Sampled>) -> Result<Vec<Sampled>, TrainError> {
        let depth = self.config.quiescent;
        let knewjade = Knewjade::new(Weights::dnf86(), Some(depth));
        let net = self.start_evaluator(g)?;
        let inner: &dyn Evaluator = match &net {
            Some(e) => e,
            None => knewjade.heuristic(),
        };
        let points: Vec<Option<Well>> = samples
            .par_iter()
            .map(|s| {
                let best = best_along_chain(inner, &s.well, 0, depth);
                (best.steps > 0).then_some(best.well)
            })
            .collect();
        let mut out = Vec::with_capacity(samples.len() * 2);
        for (s, p) in samples.into_iter().zip(points) {
            out.push(s);
            if let Some(well) = p {
                out.push(Sampled {
                    well,
                    depth: s.depth,
                });
            }
        }
        Ok(out)
    }

    /// Step 3: each sample's target, and how many training beams died.
    fn targets(&self, g: u32, samples: &[Sampled]) -> Result<(Vec<f32>, usize), TrainError> {
        let path = self.gen_dir(g).join("targets.bin");
        let lost = self.config.lost_value as f32;
        let died = |t: &[f32]| t.iter().filter(|&&x| x == lost).count();
        if path.exists() {
            self.observer.done_before(g, Phase::Targets);
            let t = data::load_targets(&path)?;
            let d = if self.learns_heuristic(g) {
                0
            } else {
                died(&t)
            };
            return Ok((t, d));
        }
        self.observer.phase(g, Phase::Targets, samples.len() as u64);
        if self.learns_heuristic(g) {
            let targets = self.heuristic_targets(g, samples)?;
            data::save_targets(&path, &targets)?;
            return Ok((targets, 0));
        }
        let eval = self
            .start_evaluator(g)?
            .expect("a generation after the first starts from a net");
        let partial = self.gen_dir(g).join("targets-partial.bin");
        let mut targets = if partial.exists() {
            data::load_targets(&partial)?
        } else {
            Vec::new()
        };
        targets.truncate(samples.len());
        self.observer.advanced(targets.len() as u64);
        let shape = self.config.beam;
        while targets.len() < samples.len() {
            let chunk = &samples[targets.len()..(targets.len() + CHUNK).min(samples.len())];
            let values: Vec<f32> = chunk
                .par_iter()
                .map(|s| {
                    let t = match beam::run(&s.well, shape, &eval, |w| eval.value(w)) {
                        beam::Outcome::Died { .. } => lost,
                        beam::Outcome::Survived { best } => best as f32,
                    };
                    self.observer.advanced(1);
                    t
                })
                .collect();
            targets.extend(values);
            data::save_targets(&partial, &targets)?;
        }
        data::save_targets(&path, &targets)?;
        let _ = fs::remove_file(&partial);
        let d = died(&targets);
        Ok((targets, d))
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
        if let Some(r) = read_json::<Rescale>(&path)? {
            return Ok(Some(r));
        }
        let lost = self.config.lost_value as f32;
        let survived: Vec<f64> = targets
            .iter()
            .filter(|&&t| t != lost)
            .map(|&t| f64::from(t))
            .collect();
        let (mean, std) = mean_std_f64(&survived);
        let r = if std > 1e-9 {
            Rescale {
                scale: (1.0 / std) as f32,
                shift: (-mean / std) as f32,
            }
        } else {
            Rescale {
                scale: 1.0,
                shift: 0.0,
            }
        };
        write_json(&path, &r)?;
        Ok(Some(r))
    }

    /// Generation 0's targets: the heuristic's standardised values. Fixes
    /// the value units (`units.json`).
    fn heuristic_targets(&self, g: u32, samples: &[Sampled]) -> Result<Vec<f32>, TrainError> {
        let knewjade = Knewjade::new(Weights::dnf86(), Some(self.config.quiescent));
        let h = knewjade.heuristic();
        let costs: Vec<f64> = samples.par_iter().map(|s| h.cost(&s.well, 0.0)).collect();
        self.observer.advanced(samples.len() as u64);
        let (mean, spread) = mean_std_f64(&costs);
        let spread = if spread > 0.0 { spread } else { 1.0 };
        let units = Units {
            mean,
            spread,
            line_weight: -h.weights().score / spread,
        };
        write_json(&self.gen_dir(g).join("units.json"), &units)?;
        Ok(costs
            .iter()
            .map(|c| (-(c - mean) / spread) as f32)
            .collect())
    }

    /// Step 4: the next net, fitted to the targets.
    fn fit(&self, g: u32, samples: &[Sampled], targets: &[f32]) -> Result<fit::Fitted, TrainError> {
        let dir = self.gen_dir(g);
        let f32_path = dir.join("net.f32");
        let fit_path = dir.join("fit.json");
        if let (true, Some(record)) = (f32_path.exists(), read_json::<FitRecord>(&fit_path)?) {
            if dir.join("net.nnue").exists() {
                self.observer.done_before(g, Phase::Fit);
                return Ok(fit::Fitted {
                    net: Net::load(&f32_path)?,
                    epochs: record.epochs,
                    best_epoch: record.best_epoch,
                    split: record.split,
                });
            }
        }
        let rescale = self.rescale(g, targets)?;
        let start = match self.start_net(g)? {
            Some(mut net) => {
                // In the units the targets are standardised to.
                if let Some(r) = rescale {
                    net.rescale(r.scale, r.shift);
                }
                net
            }
            None => {
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
        let lost = self.config.lost_value as f32;
        let batch: Vec<Sample> = samples
            .iter()
            .zip(targets)
            .map(|(s, &t)| Sample {
                well: s.well,
                target: match rescale {
                    Some(r) if t != lost => r.scale * t + r.shift,
                    _ => t,
                },
            })
            .collect();
        self.observer
            .phase(g, Phase::Fit, u64::from(self.config.fit.max_epochs));
        let mut log_error = None;
        let fitted = fit::fit(
            start,
            &batch,
            &self.config.fit,
            self.config.seed ^ mix(g),
            |e| {
                self.observer.epoch(g, e);
                if e.epoch > 0 {
                    self.observer.advanced(1);
                }
                if let Err(err) =
                    self.log(&serde_json::json!({"event": "epoch", "generation": g, "epoch": e}))
                {
                    log_error.get_or_insert(err);
                }
            },
        );
        if let Some(err) = log_error {
            return Err(err);
        }
        let quant = QuantNet::from_net(&fitted.net)?;
        fitted.net.save(&f32_path)?;
        quant.save(&dir.join("net.nnue"))?;
        write_json(
            &fit_path,
            &FitRecord {
                epochs: fitted.epochs.clone(),
                best_epoch: fitted.best_epoch,
                split: fitted.split,
                error_bound: quant.error_bound(),
            },
        )?;
        Ok(fitted)
    }

    /// Appends one JSON line to the log.
    fn log(&self, value: &serde_json::Value) -> Result<(), TrainError> {
        append_log(self.dir, value)
    }

    fn plot(&self) -> Result<(), TrainError> {
        let path = plot_path(self.dir);
        let svg = plot::draw(self.dir)?;
        write_atomic(&path, svg.as_bytes()).map_err(io_error(&path))
    }
}

/// Targets are computed and saved in chunks of this many samples.
const CHUNK: usize = 2048;

fn mix(g: u32) -> u64 {
    crate::well::mix64(u64::from(g) + 0x7461_7267)
}

/// `rescale.json`: the map from the previous net's value units to this
/// generation's.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Rescale {
    scale: f32,
    shift: f32,
}

fn mean_std(values: &[f32]) -> (f64, f64) {
    let v: Vec<f64> = values.iter().map(|&x| f64::from(x)).collect();
    mean_std_f64(&v)
}

fn mean_std_f64(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}
