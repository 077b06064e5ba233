//! `hatetris train`: the generational trainer's command line, progress
//! bars and per-epoch lines.

use std::io::Write;

use anyhow::{anyhow, bail, Result};

use hatetris::launch::NetFileError;
use hatetris::nnue::{wider_build, Net, MAX_HIDDEN};
use hatetris::run::DepthStats;
use hatetris::search::Observer;
use hatetris::train::{self, Config, Epoch, Generation, Learning, Master, Phase, TrainObserver};

use super::args::{RedoArg, TrainArgs};
use super::progress::Bar;
use super::search::{check_width, threads_arg};
use super::{note, outln};

/// The trainer's observer: a bar for each step (the master beam's depths,
/// the sampling, the fit), and one line per epoch and generation.
struct TrainProgress {
    bar: Bar,
}

impl Observer for TrainProgress {
    fn fell_back(&self, depth: u32, why: &str) {
        self.bar
            .say(format!("master beam, depth {depth}: {why}; falling back"));
    }

    fn resumed(&self, depth: u32, wells: usize) {
        self.bar.say(format!(
            "master beam: resuming at depth {depth} ({wells} wells)"
        ));
    }

    fn depth_started(&self, depth: u32, parents: u64) {
        self.bar.start(
            parents,
            "  master depth {msg} [{bar:30}] {pos}/{len} wells  eta {eta}",
            depth.to_string(),
        );
    }

    fn expanded(&self, parents: u64) {
        self.bar.inc(parents);
    }

    fn depth_finished(&self, stats: &DepthStats) {
        self.bar.clear();
        if stats.depth.is_multiple_of(25) {
            self.bar.say(format!(
                "  master depth {:>4}: best score {:>3}, {:.1}s",
                stats.depth, stats.best_score, stats.elapsed_s
            ));
        }
    }
}

impl TrainObserver for TrainProgress {
    fn phase(&self, generation: u32, phase: Phase, total: u64) {
        self.bar
            .say(format!("generation {generation}: {}", phase.name()));
        if phase != Phase::Master {
            let template = match phase {
                Phase::Fit => "  {msg} [{bar:30}] epoch {pos}/{len} (at most)  {elapsed}",
                _ => "  {msg} [{bar:30}] {pos}/{len}  {per_sec}  eta {eta}",
            };
            self.bar.start(total, template, phase.name());
        }
    }

    fn done_before(&self, generation: u32, phase: Phase) {
        self.bar.say(format!(
            "generation {generation}: {} already done",
            phase.name()
        ));
    }

    fn advanced(&self, n: u64) {
        self.bar.inc(n);
    }

    fn epoch(&self, generation: u32, e: &Epoch) {
        self.bar.say(format!(
            "  generation {generation} epoch {:>3}: training loss {:.5}  validation loss {:.5}  {:.1}s",
            e.epoch, e.train_loss, e.validation_loss, e.seconds
        ));
    }

    fn master(&self, generation: u32, m: &Master) {
        self.bar.clear();
        self.bar.say(format!(
            "generation {generation}: master beam scored {} (depth {}), {} at depth {} in {}",
            m.score,
            m.best_depth,
            if m.exhausted { "died" } else { "stopped" },
            m.depth,
            super::search::human_seconds(m.seconds)
        ));
    }

    fn generation(&self, s: &Generation) {
        self.bar.clear();
        self.bar.say(describe(s));
    }
}

fn describe(s: &Generation) -> String {
    let gate = match &s.gate {
        Some(g) => format!(
            "; gate: {:.1} pieces and {:.1} lines a start against the champion's {:.1} and {:.1}{}{}, {}",
            g.candidate_pieces,
            g.candidate_lines,
            g.champion_pieces,
            g.champion_lines,
            g.steady_text(),
            g.wide_text().map(|t| format!("; {t}")).unwrap_or_default(),
            if g.kept { "kept" } else { "not kept" }
        ),
        None => String::new(),
    };
    format!(
        "generation {}: master score {}, {} samples{} ({} beams died), targets {:.3} ± {:.3}, validation loss {:.5} (epoch {} of {}){}, {:.2} core-hours",
        s.generation,
        s.master.score,
        s.samples,
        from_wide(s),
        s.died,
        s.target_mean,
        s.target_std,
        s.validation_loss,
        s.best_epoch,
        s.epochs,
        s.held_order
            .map(|o| format!(
                ", held-out pairs in order {:.4} → {:.4} (of {})",
                o.start, o.kept, o.pairs
            ))
            .unwrap_or_default(),
        s.core_seconds / 3600.0
    ) + &gate
}

fn redo(r: RedoArg) -> train::Redo {
    match r {
        RedoArg::Master => train::Redo::Master,
        RedoArg::Samples => train::Redo::Samples,
        RedoArg::Targets => train::Redo::Targets,
        RedoArg::Fit => train::Redo::Fit,
        RedoArg::Gate => train::Redo::Gate,
    }
}

/// The settings asked for: the folder's own (or the defaults) with every
/// option given on the command line put over them.
fn config(a: &TrainArgs, base: Config) -> Result<Config> {
    // A fork's source that already judged on its wide games' game keeps
    // doing so (the folders made before that was refused go on as made).
    let judged_before = base.learning.as_ref().and_then(judges_on_wide_game);
    let mut c = base;
    if let Some(v) = a.hidden {
        if !(1..=MAX_HIDDEN).contains(&v) {
            bail!("--hidden must be 1 to {MAX_HIDDEN}{}", wider_build(v));
        }
        c.hidden = v;
    }
    if let Some(v) = a.width {
        if v == 0 {
            bail!("--width must be at least 1");
        }
        c.master_width = v;
    }
    if let Some(v) = a.master_depth {
        if v == 0 {
            bail!("--master-depth must be at least 1");
        }
        c.master_depth = v;
    }
    if let Some(v) = a.quiescent.depth {
        c.quiescent = v;
    }
    if let Some(v) = a.samples {
        if (1..10).contains(&v) {
            bail!("--samples must be at least 10 (or 0 with --wide-samples)");
        }
        c.samples = v;
    }
    if let Some(v) = a.heuristic_samples {
        c.heuristic_samples = v;
    }
    if a.no_chain_points {
        c.chain_points = false;
    }
    if let Some(v) = a.children {
        c.children = v;
    }
    if let Some(v) = a.beam_width {
        if v == 0 {
            bail!("--beam-width must be at least 1");
        }
        c.beam.width = v;
    }
    if let Some(v) = a.beam_pieces {
        if v == 0 {
            bail!("--beam-pieces must be at least 1");
        }
        c.beam.pieces = v;
    }
    if a.beam_lookahead {
        c.beam_lookahead = true;
    }
    if let Some(v) = a.lost_value {
        if !v.is_finite() {
            bail!("--lost-value must be a number");
        }
        c.lost_value = v;
    }
    if a.no_standardise {
        c.standardise = false;
    }
    if let Some(v) = a.epochs {
        if v == 0 {
            bail!("--epochs must be at least 1");
        }
        c.fit.max_epochs = v;
    }
    if let Some(v) = a.patience {
        c.fit.patience = v.max(1);
    }
    if let Some(v) = a.batch {
        if v == 0 {
            bail!("--batch must be at least 1");
        }
        c.fit.batch = v;
    }
    if let Some(v) = a.learning_rate {
        if !(v.is_finite() && v > 0.0 && v < 1.0) {
            bail!("--learning-rate must be between 0 and 1");
        }
        c.fit.learning_rate = v;
    }
    if let Some(v) = a.weight_decay {
        if !(v.is_finite() && v >= 0.0) {
            bail!("--weight-decay must be 0 or more");
        }
        c.fit.weight_decay = v;
    }
    if let Some(v) = a.validation {
        if !(v > 0.0 && v < 1.0) {
            bail!("--validation must be between 0 and 1 (a share of the samples)");
        }
        c.fit.validation = v;
    }
    if let Some(v) = a.rank_weight {
        if !(v.is_finite() && v >= 0.0) {
            bail!("--rank-weight must be 0 or more");
        }
        c.fit.rank_weight = v;
    }
    if a.rank_validation {
        c.fit.rank_validation = true;
    }
    if let Some(v) = a.average_fits {
        if v == 0 {
            bail!("--average-fits must be at least 1");
        }
        c.fit.average = v;
    }
    if let Some(v) = a.blend {
        if !(v > 0.0 && v <= 1.0) {
            bail!("--blend must be above 0 and at most 1 (a share of the way to the fit)");
        }
        c.fit.blend = v;
    }
    if a.positional {
        c.fit.positional = true;
    }
    if let Some(v) = a.widen {
        if !(1..=MAX_HIDDEN).contains(&v) {
            bail!("--widen must be 1 to {MAX_HIDDEN}{}", wider_build(v));
        }
        c.fit.widen = v;
    }
    if c.fit.rank_validation && c.fit.rank_weight <= 0.0 {
        bail!("--rank-validation needs a ranking term (--rank-weight above 0)");
    }
    if let Some(v) = a.seed {
        c.seed = v;
    }
    if a.no_learning {
        c.learning = None;
    }
    let learning_flags = [
        (a.window.is_some(), "--window"),
        (a.start_samples.is_some(), "--start-samples"),
        (a.start_width.is_some(), "--start-width"),
        (a.start_every.is_some(), "--start-every"),
        (a.graded_from.is_some(), "--graded-from"),
        (a.life_pieces.is_some(), "--life-pieces"),
        (a.life_weight.is_some(), "--life-weight"),
        (a.far_share.is_some(), "--far-share"),
        (a.reach_share.is_some(), "--reach-share"),
        (a.reach_horizon.is_some(), "--reach-horizon"),
        (a.wide_samples.is_some(), "--wide-samples"),
        (a.wide_gates.is_some(), "--wide-gates"),
        (a.wide_unread.is_some(), "--wide-unread"),
        (a.wide_unread_min.is_some(), "--wide-unread-min"),
        (a.wide_spare_starts.is_some(), "--wide-spare-starts"),
        (a.gate_width.is_some(), "--gate-width"),
        (a.gate_cap.is_some(), "--gate-cap"),
        (a.gate_every.is_some(), "--gate-every"),
        (a.gate_openings.is_some(), "--gate-openings"),
        (a.gate_margin.is_some(), "--gate-margin"),
        (a.gate_block.is_some(), "--gate-block"),
        (a.gate_wide.is_some(), "--gate-wide"),
        (a.gate_wide_from.is_some(), "--gate-wide-from"),
        (a.gate_wide_rotate.is_some(), "--gate-wide-rotate"),
        (a.gate_wide_always.is_some(), "--gate-wide-always"),
        (a.gate_wide_slack.is_some(), "--gate-wide-slack"),
        (a.gate_rotate.is_some(), "--gate-rotate"),
        (a.gate_games.is_some(), "--gate-games"),
        (a.gate_wide_game.is_some(), "--gate-wide-game"),
        (a.fresh_masters.is_some(), "--fresh-masters"),
    ];
    if let Some(l) = c.learning.as_mut() {
        if let Some(v) = a.window {
            if v == 0 {
                bail!("--window must be at least 1");
            }
            l.window = v;
        }
        if let Some(v) = a.start_samples {
            l.start_samples = v;
        }
        if let Some(v) = a.start_width {
            if v == 0 {
                bail!("--start-width must be at least 1");
            }
            l.start_beam.width = v;
        }
        if let Some(v) = a.start_every {
            if v == 0 {
                bail!("--start-every must be at least 1");
            }
            l.start_every = v;
        }
        if let Some(v) = a.graded_from {
            l.graded_from = v;
        }
        if let Some(v) = a.life_pieces {
            if v != 0 && v <= c.beam.pieces {
                bail!(
                    "--life-pieces must be past the training beams' {} pieces (or 0: off)",
                    c.beam.pieces
                );
            }
            l.life_pieces = v;
            if v > 0 && l.life_weight == 0.0 && a.life_weight.is_none() {
                l.life_weight = 1.0;
            }
        }
        if let Some(v) = a.life_weight {
            if !(v.is_finite() && v >= 0.0) {
                bail!("--life-weight must be 0 or more (standard deviations)");
            }
            l.life_weight = v;
        }
        if let Some(v) = a.far_share {
            if !(0.0..=1.0).contains(&v) {
                bail!("--far-share must be from 0 to 1");
            }
            if v > 0.0 && l.life_pieces == 0 {
                bail!("--far-share needs the life term's horizon (--life-pieces)");
            }
            l.far_share = v;
        }
        if let Some(v) = a.reach_share {
            if !(v.is_finite() && v >= 0.0) {
                bail!("--reach-share must be 0 or more (standard deviations)");
            }
            l.reach_share = v;
            if v > 0.0 && l.reach_horizon == 0 && a.reach_horizon.is_none() {
                l.reach_horizon = train::reach::DEFAULT_HORIZON;
            }
        }
        if let Some(v) = a.reach_horizon {
            if v == 0 {
                bail!("--reach-horizon must be at least 1 piece");
            }
            l.reach_horizon = v;
        }
        if let Some(v) = a.wide_samples {
            l.wide_samples = v;
            if v > 0 && l.wide_gates == 0 && a.wide_gates.is_none() {
                l.wide_gates = train::wide::DEFAULT_GATES;
            }
        }
        if let Some(v) = a.wide_gates {
            if v == 0 {
                bail!("--wide-gates must be at least 1");
            }
            l.wide_gates = v;
        }
        if let Some(v) = a.gate_width {
            if v == 0 {
                bail!("--gate-width must be at least 1");
            }
            l.gate.width = v;
        }
        if let Some(v) = a.gate_cap {
            if v == 0 {
                bail!("--gate-cap must be at least 1");
            }
            l.gate.cap = v;
        }
        if let Some(v) = a.gate_every {
            if v == 0 {
                bail!("--gate-every must be at least 1");
            }
            l.gate.every = v;
        }
        if let Some(v) = a.gate_openings {
            l.gate.opening_every = v;
        }
        if let Some(v) = a.gate_margin {
            if !(v.is_finite() && v >= 0.0) {
                bail!("--gate-margin must be 0 or more (standard errors)");
            }
            l.gate.margin = v;
        }
        if let Some(v) = a.gate_block {
            l.gate.block = v;
        }
        if let Some(v) = &a.gate_wide {
            if v.contains(&0) {
                bail!("--gate-wide: every width must be at least 1");
            }
            if repeats(v) {
                bail!("--gate-wide: a width is given twice");
            }
            l.gate.wide = v.clone();
        }
        let embedded_games = Learning::embedded_games();
        let embedded = |flag: &str, name: &str| match embedded_games.iter().find(|g| g.name == name)
        {
            Some(game) => Ok(game.clone()),
            None => {
                let known: Vec<&str> = embedded_games.iter().map(|g| g.name.as_str()).collect();
                Err(anyhow!(
                    "{flag}: no embedded game named {name} (known: {})",
                    known.join(", ")
                ))
            }
        };
        if let Some(names) = &a.gate_games {
            if repeats(names) {
                bail!("--gate-games: a game is named twice");
            }
            let mut games = Vec::new();
            for name in names {
                if sampled(l, name) {
                    bail!("--gate-games: {name} is a game the samples come from, so the gate cannot judge on it");
                }
                games.push(embedded("--gate-games", name)?);
            }
            // The wide games stay where they started.
            if l.gate.wide_game.is_none() {
                l.gate.wide_game = l.gate.games.first().cloned();
            }
            l.gate.games = games;
        }
        if let Some(name) = &a.gate_wide_game {
            let game = embedded("--gate-wide-game", name)?;
            // Naming the game they already start from moves nothing.
            if l.gate.wide_game() != Some(&game) {
                l.gate.wide_game = Some(game);
            }
        }
        if let Some(v) = &a.gate_wide_from {
            if l.gate.wide.is_empty() {
                bail!("--gate-wide-from needs --gate-wide (the widths its games are played at)");
            }
            if v.contains(&0) {
                bail!("--gate-wide-from: every piece must be at least 1 (without the option the games start from the empty well)");
            }
            if repeats(v) {
                bail!("--gate-wide-from: a piece is given twice");
            }
            for &at in v {
                if let Err(why) = l.gate.wide_start(at) {
                    bail!("--gate-wide-from {at}: {why}");
                }
            }
            l.gate.wide_from = v.clone();
        }
        if a.gate_wide_game.is_some() && l.gate.wide_from.is_empty() {
            bail!(
                "--gate-wide-game needs --gate-wide-from (the pieces of it its games start from)"
            );
        }
        if let Some(n) = a.gate_wide_rotate {
            if n == 0 {
                bail!("--gate-wide-rotate must be at least 1 (without it every gate plays every start)");
            }
            l.gate.wide_rotate = n;
        }
        let starts = l.gate.wide_from.len();
        if l.gate.wide_rotate as usize >= starts.max(1) {
            bail!(
                "--gate-wide-rotate {} needs more --gate-wide-from starts than that ({starts} given)",
                l.gate.wide_rotate
            );
        }
        if let Some(names) = &a.gate_rotate {
            if names.len() < 2 {
                bail!("--gate-rotate needs at least two games to take turns over");
            }
            if repeats(names) {
                bail!("--gate-rotate: a game is named twice");
            }
            for name in names {
                if sampled(l, name) {
                    bail!("--gate-rotate: {name} is a game the samples come from, so the gate cannot judge on it");
                }
                if l.gate.game(name).is_none() {
                    let known: Vec<&str> = l
                        .gate
                        .named_games()
                        .map(|game| game.name.as_str())
                        .collect();
                    bail!(
                        "--gate-rotate: no gate game or opening named {name} (known: {})",
                        known.join(", ")
                    );
                }
            }
            l.gate.rotate = names.clone();
        }
        if let Some(v) = a.fresh_masters {
            l.fresh_masters = v;
        }
        if let Some(v) = a.gate_wide_always {
            l.gate.wide_always = v;
        }
        if let Some(v) = a.gate_wide_slack {
            if l.gate.wide.is_empty() {
                bail!("--gate-wide-slack needs --gate-wide (the widths its games are played at)");
            }
            l.gate.wide_slack = v;
        }
        if l.gate.wide_always && l.gate.wide.is_empty() {
            bail!("--gate-wide-always needs --gate-wide (the widths its games are played at)");
        }
        if let Some(v) = a.wide_unread {
            l.wide_unread = v;
        }
        if let Some(v) = a.wide_unread_min {
            l.wide_unread_min = v;
        }
        if l.wide_unread_min > 0 && !l.wide_unread {
            bail!(
                "--wide-unread-min needs --wide-unread (the games it counts are the unread ones; in a fork, --wide-unread-min 0 turns it off)"
            );
        }
        if let Some(v) = a.wide_spare_starts {
            l.wide_spare_starts = v;
        }
        if l.wide_spare_starts && l.wide_samples == 0 {
            bail!("--wide-spare-starts needs --wide-samples (the samples it leaves games out of)");
        }
        if l.wide_spare_starts && l.gate.wide_rotate == 0 {
            bail!("--wide-spare-starts needs --gate-wide-rotate: a gate that plays every start would leave no game to draw from");
        }
        if l.wide_unread && l.wide_samples == 0 {
            bail!("--wide-unread needs --wide-samples (the samples it leaves games out of)");
        }
        if l.wide_samples > 0 && l.gate.wide.is_empty() {
            bail!("--wide-samples draws from the gate's wide games, which this folder does not play (--gate-wide)");
        }
        // The wide samples are wells of games from the wide game's wells:
        // judged on that game's positions, a candidate meets the positions
        // it was fitted near (data/train/README.md, "The gate judged where
        // its samples come from"). Checked where one of the flags that
        // place the gate or the wide games is given.
        let asked = [
            (a.gate_rotate.is_some(), "--gate-rotate"),
            (a.gate_games.is_some(), "--gate-games"),
            (a.gate_wide_game.is_some(), "--gate-wide-game"),
        ];
        if let Some((_, flag)) = asked.iter().find(|f| f.0) {
            if let Some(name) = judges_on_wide_game(l).filter(|_| judged_before.is_none()) {
                bail!(
                    "{flag}: the gate would judge on {name}, the game its wide games start from, whose wells --wide-samples trains on"
                );
            }
        }
    } else if let Some((_, flag)) = learning_flags.iter().find(|f| f.0) {
        bail!("{flag} is a setting of the learning loop, which this folder does not run (--no-learning, or a folder made before it)");
    }
    if c.samples == 0 && c.learning.as_ref().is_none_or(|l| l.wide_samples == 0) {
        bail!(
            "--samples 0 leaves the master beam unsampled, which only --wide-samples makes up for"
        );
    }
    Ok(c)
}

/// `, N from the gate's wide games`, where the generation drew some.
pub fn from_wide(s: &train::Generation) -> String {
    s.wide_samples
        .map(|n| format!(", {n} from the gate's wide games"))
        .unwrap_or_default()
}

pub fn train(a: TrainArgs, out: &mut dyn Write) -> Result<()> {
    // (The library refuses it too; here it comes before any line.)
    hatetris::folder::refuse_other(&a.dir, hatetris::folder::Holds::Training)?;
    let threads = threads_arg(a.threads)?;
    let stored = train::read_config(&a.dir)?;
    // A fork's settings are its source's with the options over them; a
    // fork made before (the same command run again) goes on.
    let fork = match &a.fork {
        Some(source) => {
            let redo = redo(a.redo.unwrap_or(RedoArg::Fit));
            let at = a.at.unwrap_or_default();
            let base = train::read_config(source)?.ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: not a training folder (no train.json) to fork from",
                    source.display()
                )
            })?;
            let made: Option<train::Forked> =
                hatetris::folder::json::read(&a.dir.join(train::FORK_JSON))?;
            match made {
                Some(f)
                    if f.source == source.display().to_string() && f.at == at && f.redo == redo =>
                {
                    None
                }
                _ => Some((source, at, redo, base)),
            }
        }
        None => None,
    };
    let base = match &fork {
        Some((.., base)) => base.clone(),
        None => stored.clone().unwrap_or_default(),
    };
    let asked = config(&a, base)?;
    let widest = match &asked.learning {
        Some(l) => {
            let gate = l.gate.wide.iter().copied().max().unwrap_or(0);
            l.widest_master(asked.master_width).max(gate)
        }
        None => asked.master_width,
    };
    check_width(widest, threads, a.force)?;
    let from = match &a.from {
        Some(path) => Some(Net::load(path).map_err(|error| NetFileError {
            path: path.clone(),
            error,
        })?),
        None => None,
    };
    super::interrupt::exit_at_once(format!(
        "interrupted: {} keeps every finished step; to go on, run the same command: {}",
        a.dir.display(),
        super::interrupt::same_command()
    ))?;
    if let Some((source, at, redo, _)) = fork {
        let forked = train::fork(source, &a.dir, at, redo, &asked)?;
        if !a.quiet {
            note!("made {}: {}", a.dir.display(), forked.describe());
        }
    }
    let progress = TrainProgress {
        bar: Bar::new(a.quiet),
    };
    if !a.quiet {
        note!(
            "training folder: {} ({} generations, {} threads{})",
            a.dir.display(),
            a.generations,
            threads,
            if stored.is_some() { ", going on" } else { "" }
        );
    }
    let report = train::train(
        &a.dir,
        Some(&asked),
        from.as_ref(),
        a.generations,
        threads,
        &progress,
    )?;
    progress.bar.clear();
    let mut lines: Vec<String> = report.generations.iter().map(describe).collect();
    if let Some(m) = &report.last_master {
        lines.push(format!(
            "the last net's master beam: score {} (depth {})",
            m.score, m.best_depth
        ));
    }
    if let Some(net) = &report.last_net {
        lines.push(format!("last net: {}", net.display()));
    }
    let picture = train::plot_path(&a.dir);
    if picture.exists() {
        lines.push(format!("picture: {}", picture.display()));
    }
    if a.json {
        // The JSON alone on standard output, the lines on standard error.
        for line in lines.iter().filter(|_| !a.quiet) {
            note!("{line}");
        }
        outln!(
            out,
            "{}",
            serde_json::json!({
                "generations": report.generations,
                "last_master": report.last_master,
                "last_net": report.last_net.map(|p| p.display().to_string()),
            })
        )?;
    } else {
        for line in &lines {
            outln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// Whether a list given on the command line holds some value twice.
/// Whether `name` is one of the games the sampling beams start from
/// ([`Learning::games`] while `start_samples` draws from them).
fn sampled(l: &Learning, name: &str) -> bool {
    l.start_samples > 0 && l.games.iter().any(|game| game.name == name)
}

/// The game the gate judges on whose wells its wide games start from,
/// when the wide samples train on those games: the leak the gate flags
/// refuse.
fn judges_on_wide_game(l: &Learning) -> Option<String> {
    let judged: Vec<&str> = match l.gate.rotate.is_empty() {
        true => l.gate.games.iter().map(|g| g.name.as_str()).collect(),
        false => l.gate.rotate.iter().map(String::as_str).collect(),
    };
    let trains = l.wide_samples > 0 && !l.gate.wide_from.is_empty();
    let wide = l.gate.wide_game().map(|g| g.name.clone());
    wide.filter(|w| trains && judged.contains(&w.as_str()))
}

fn repeats<T: PartialEq>(v: &[T]) -> bool {
    (1..v.len()).any(|i| v[..i].contains(&v[i]))
}
