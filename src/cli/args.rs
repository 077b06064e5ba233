//! The command-line arguments, as plain clap derive structs. Doc comments
//! are the help text.

use std::path::PathBuf;

use clap::builder::TypedValueParser as _;
use clap::{Args, Parser, Subcommand};

use hatetris::enemy::EnemyKind;

/// Search for HATETRIS world records, check replays, and measure the engine.
#[derive(Parser, Debug)]
#[command(name = "hatetris", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// Whether the command was asked to print nothing but its output and
    /// its errors (`--quiet`).
    pub fn quiet(&self) -> bool {
        match &self.command {
            Command::Search(a) => a.quiet,
            Command::Train(a) => a.quiet,
            Command::Tune(a) => a.quiet,
            Command::Compare(a) => a.quiet,
            _ => false,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Beam search for a high-scoring game (the main job). Every depth is
    /// written to the run folder; a killed run continues with --resume.
    #[command(after_help = EXAMPLES_SEARCH)]
    Search(SearchArgs),
    /// A run folder at a glance: depth, best score, the best well's cells
    /// and their drift over the last 100 depths (a beam that clears less than
    /// 0.4 lines a piece is filling its well), speed, memory, disk, and
    /// whether a process is running it. Safe while the search runs.
    Status(StatusArgs),
    /// Rebuild a game from a run folder and print it as a replay.
    Keyframes(KeyframesArgs),
    /// Check a whole folder. A run: every depth file's blocks, the chain of
    /// files, the manifest's figures, the history snapshots, the log and the
    /// best replay. A training folder: every generation's data, nets, master
    /// beam and gate against its summary, and the champion. A tuning folder:
    /// the evaluations log, the best weights and the reference game. Exit
    /// code 1 when anything is wrong.
    Verify(VerifyArgs),
    /// Draw a run's pictures (best score, the last beam's scores, time and
    /// memory by depth) as DIR/run.svg and DIR/run.png.
    Plot(PlotArgs),
    /// Check, show, encode and build replays.
    #[command(subcommand, after_help = EXAMPLES_REPLAY)]
    Replay(ReplayCmd),
    /// Show the heuristic's terms, weights and contributions for one well
    /// (or, with --net, a net's value and its largest contributions).
    Eval(EvalArgs),
    /// Train a neural evaluator, generation by generation, in a folder that
    /// holds everything (master beams, samples, targets, nets, losses, a
    /// picture). A killed trainer goes on when run again on the folder.
    #[command(after_help = EXAMPLES_TRAIN)]
    Train(Box<TrainArgs>),
    /// Tune the heuristic's weights, or with --net a net's output layer,
    /// with CMA-ES in a folder (a killed tuner goes on when run again on
    /// it); the best so far is always in DIR/best.toml, which `search
    /// --weights` reads, or DIR/best.nnue, which `search --net` reads.
    #[command(after_help = EXAMPLES_TUNE)]
    Tune(TuneArgs),
    /// The tuner's fitness for two or more weights files side by side, with
    /// the spread and the paired difference, to tell a gain from noise.
    Compare(CompareArgs),
    /// Time the engine on a fixed workload.
    #[command(subcommand)]
    Bench(BenchCmd),
    /// Move generation: print every well a piece can produce.
    #[command(subcommand)]
    Movegen(MovegenCmd),
    /// Print a shell completion script (e.g. `hatetris completions bash >
    /// ~/.local/share/bash-completion/completions/hatetris`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `hatetris search --help`'s examples.
const EXAMPLES_SEARCH: &str = "\
Examples:
  hatetris search                                   width 2,000 into a new folder under runs/
  hatetris search --width 100000 --quiescent --out runs/big
  hatetris search --resume runs/big                 go on after a kill, with the run's own settings
  hatetris search --net data/nets/ranked.nnue --quiescent --width 10000
  hatetris search --net data/nets/wide.nnue --quiescent --width 100000   the net for record runs
  hatetris search --from @record.txt --at 900 --max-depth 1200
  hatetris search --json -q | jq .score             the JSON alone on standard output";

/// `hatetris train --help`'s examples.
const EXAMPLES_TRAIN: &str = "\
Examples:
  hatetris train runs/my-nets --generations 4       run it again after a kill: it goes on
  hatetris train runs/my-nets --generations 6       two more generations in the same folder
  hatetris train runs/p10 --fork runs/my-nets --at 2 --redo targets --beam-pieces 10 --generations 3
                                                    generation 2 again with 10-piece training beams
  hatetris train runs/m1 --fork runs/my-nets --at 3 --redo gate --gate-margin 1 --generations 4
                                                    generation 3's gate judged again with a margin (seconds)
  hatetris search --net runs/my-nets/gen-003/net.nnue --quiescent --width 10000";

/// `hatetris tune --help`'s examples.
const EXAMPLES_TUNE: &str = "\
Examples:
  hatetris tune runs/tune --width 10000 --quiescent --budget 400
  hatetris tune runs/tune --budget 600              go on with a larger budget
  hatetris compare --weights data/weights/dnf-86.toml --weights runs/tune/best.toml --width 10000 --quiescent
  hatetris search --weights runs/tune/best.toml --width 10000 --quiescent
  hatetris tune runs/tune-net --net data/nets/best.f32 --quiescent --width 2000 --budget 100";

/// `hatetris bench strength --help`'s examples.
const EXAMPLES_STRENGTH: &str = "\
Examples:
  hatetris bench strength --net data/nets/best.nnue --quiescent --weights data/weights/dnf-86.toml
  hatetris bench strength --weights data/weights/dnf-86.toml --weights runs/tune/best.toml --quiescent 8";

/// `hatetris replay --help`'s examples.
const EXAMPLES_REPLAY: &str = "\
Examples:
  hatetris replay score @runs/big/best-replay.txt   a replay from a file: @FILE (- is standard input)
  hatetris replay show @game.txt --from 100 --to 110
  hatetris replay convert @game.txt --format raw
  hatetris replay render @game.txt --out game.png --every 50
  hatetris keyframes runs/big --format wells | hatetris replay from-wells -";

/// `--quiescent [DEPTH]`, one syntax for every command that ranks wells
/// (`search`, `bench search`, `bench eval`, `train`, `tune`, `compare`;
/// `eval` and `bench strength` spell it the same way by hand, see there):
/// alone, the default depth; `--quiescent N` or `--quiescent=N`, 1 to 32
/// (0 is refused everywhere: leave the flag out for no lookahead).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct Quiescent {
    /// Rank wells with the quiescent lookahead, following chains of up to
    /// DEPTH single-line clears (1 to 32; 32, no cap, when given without a
    /// value).
    // Keep "32" equal to hatetris::evaluate::DEFAULT_QUIESCENT_DEPTH (a test checks it).
    #[arg(long = "quiescent", value_name = "DEPTH", num_args = 0..=1, default_missing_value = "32", value_parser = clap::value_parser!(u8).range(1..=32))]
    pub depth: Option<u8>,
}

/// `--chain-step-cost COST`, for `search` and `bench search` (`bench
/// strength` spells it per evaluator by hand, see there).
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ChainStepCost {
    /// Add COST to a lookahead chain's point for each hypothetical clear it
    /// took (in the net's value units; 0, the default, none), so that a
    /// well worth its lines still to clear ranks below one that cleared
    /// them. Needs --net and --quiescent (a resume takes the run's).
    #[arg(long = "chain-step-cost", value_name = "COST")]
    pub cost: Option<f64>,
}

/// A replay format, for `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReplayFormat {
    /// What the game exports and reads (paste it into the game).
    Base2048,
    /// The game's older compact format.
    Base65536,
    /// Hexadecimal.
    Hex,
    /// The keys as letters (L, R, D, U).
    Raw,
}

/// `train --redo`: the first step of the forked generation done again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RedoArg {
    /// Its master beam and everything after.
    Master,
    /// Its samples (the master beam kept).
    Samples,
    /// Its targets (the samples kept).
    Targets,
    /// Its fit, gate and summary (the targets kept).
    Fit,
    /// Its gate's verdict and summary alone (everything it played kept,
    /// judged again under a changed --gate-margin, --gate-block or
    /// --gate-wide-slack).
    Gate,
}

/// `keyframes --pick`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PickArg {
    /// The highest score (ties: the shallowest).
    Best,
    /// The deepest depth's highest score.
    Deepest,
}

/// `keyframes --format`: a replay format, or the wells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyframesFormat {
    /// What the game exports and reads (paste it into the game).
    Base2048,
    /// The game's older compact format.
    Base65536,
    /// Hexadecimal.
    Hex,
    /// The keys as letters (L, R, D, U).
    Raw,
    /// One well per line, 20 integers.
    Wells,
}

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The run folder.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Print the status again every SECONDS (1 to 86400; 10 when given
    /// without a value) until interrupted: `--watch`, `--watch 5` or
    /// `--watch=5`, before or after DIR.
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "10")]
    pub watch: Option<String>,
    /// Print one JSON object (a line) instead of text; with --watch, one
    /// line each time. `depth` is the last complete depth, `best_depth`
    /// where the best score was first reached (as in `search --json`).
    #[arg(long)]
    pub json: bool,
    /// Also redraw the run's pictures (as `hatetris plot`).
    #[arg(long)]
    pub plot: bool,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The run folder.
    pub dir: PathBuf,
    /// Write the pictures here instead: into a folder (as run.svg and
    /// run.png), or as FILE.svg and FILE.png (give the name without an
    /// extension, or with either; another extension is refused).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The training folder (created if new; an existing one goes on with
    /// its own settings).
    pub dir: PathBuf,
    /// Generations to have in the folder when done (the last net's master
    /// beam is run too). 0 only redraws the folder's picture.
    #[arg(long, default_value_t = 3)]
    pub generations: u32,
    /// Start from this training net (a .f32 file) instead of learning the
    /// heuristic first. Only for a new folder.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Make the new folder a fork of this training folder: its generations
    /// before --at, and generation --at up to the step before --redo, under
    /// its settings with the ones given here put over them (the gate's
    /// positions and --hidden cannot change; its wide games, --gate-wide*,
    /// can); then train on as usual. Run again, the same command goes on.
    #[arg(long, value_name = "FOLDER", requires = "at", conflicts_with = "from")]
    pub fork: Option<PathBuf>,
    /// The generation a fork does again from --redo's step.
    #[arg(long, value_name = "GENERATION", requires = "fork")]
    pub at: Option<u32>,
    /// The first step of generation --at that a fork does again
    /// [default: fit].
    #[arg(long, value_enum, requires = "fork")]
    pub redo: Option<RedoArg>,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hidden units of the first net [default: 64].
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Master beam width [default: 10000].
    #[arg(long)]
    pub width: Option<usize>,
    /// The master beam stops at this depth [default: 10000].
    #[arg(long, value_name = "DEPTH")]
    pub master_depth: Option<u32>,
    /// The master beam's lookahead (always on in training) [default: 32].
    #[command(flatten)]
    pub quiescent: Quiescent,
    /// Wells sampled per generation, spread evenly over the master beam's
    /// depths [default: 50000].
    #[arg(long)]
    pub samples: Option<usize>,
    /// Wells sampled for generation 0 when it learns the heuristic
    /// [default: 600000].
    #[arg(long)]
    pub heuristic_samples: Option<usize>,
    /// Random children added per sampled well (placements of the piece
    /// HATETRIS Mild gives) [default: 1].
    #[arg(long)]
    pub children: Option<usize>,
    /// Leave out the samples' lookahead chain points (on by default).
    #[arg(long)]
    pub no_chain_points: bool,
    /// Training beam width [default: 50].
    #[arg(long)]
    pub beam_width: Option<usize>,
    /// Pieces each training beam plays [default: 20].
    #[arg(long)]
    pub beam_pieces: Option<u32>,
    /// The training beams rank wells with the lookahead (the master beam's
    /// --quiescent depth), as the master beam and the gate do [default:
    /// off, the net alone].
    #[arg(long)]
    pub beam_lookahead: bool,
    /// The target of a sample whose training beam dies, in value units (one
    /// unit: the standard deviation of the surviving targets, or of the
    /// heuristic's values in generation 0) [default: -4].
    #[arg(long, allow_negative_numbers = true)]
    pub lost_value: Option<f64>,
    /// Keep the surviving targets in the previous net's units instead of
    /// standardising them each generation.
    #[arg(long)]
    pub no_standardise: bool,
    /// Most epochs per fit [default: 40].
    #[arg(long)]
    pub epochs: Option<u32>,
    /// Stop a fit after this many epochs in a row without a better
    /// validation loss (each such epoch also halves the step size)
    /// [default: 4].
    #[arg(long)]
    pub patience: Option<u32>,
    /// Minibatch size [default: 256].
    #[arg(long)]
    pub batch: Option<usize>,
    /// Adam's step size [default: 0.001].
    #[arg(long)]
    pub learning_rate: Option<f32>,
    /// Decoupled weight decay [default: 0].
    #[arg(long)]
    pub weight_decay: Option<f32>,
    /// Share of the samples held out for validation [default: 0.1].
    #[arg(long)]
    pub validation: Option<f64>,
    /// Weight of a ranking term in the fit's loss: over pairs of wells
    /// sampled at one depth, the order of their targets [default: 0, the
    /// squared error alone].
    #[arg(long, value_name = "WEIGHT", allow_negative_numbers = true)]
    pub rank_weight: Option<f32>,
    /// Stop the fit early on the held-out samples' whole loss (the squared
    /// error plus the ranking term) rather than the squared error alone.
    #[arg(long)]
    pub rank_validation: bool,
    /// Make N fits from the same start (each shuffling its batches its own
    /// way) and average their weights into the net [default: 1].
    #[arg(long, value_name = "N")]
    pub average_fits: Option<u32>,
    /// Keep the champion moved only this share of the way to the fit,
    /// weight by weight (above 0, at most 1) [default: 1, the fit itself].
    #[arg(long, value_name = "SHARE")]
    pub blend: Option<f32>,
    /// Fit in the positional layout: a shared start net gains a zero row
    /// for every (position, pattern), so the fit learns where a pattern
    /// lies; the search then costs about twice the time a child [default:
    /// off, the start net's layout].
    #[arg(long)]
    pub positional: bool,
    /// Fit with this many hidden units: a champion with fewer gains fresh
    /// ones, which add nothing to its value until the fit moves them; the
    /// search then costs more a child, and this build searches with at
    /// most 64 [default: the champion's units].
    #[arg(long, value_name = "UNITS")]
    pub widen: Option<usize>,
    /// Seed of every random choice [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// The plain loop of a new folder: each net follows the last, fitted
    /// on its own generation's master-beam samples alone (no gate, window,
    /// steady-state starts or graded targets).
    #[arg(long)]
    pub no_learning: bool,
    /// Generations whose samples and targets a fit reads [default: 4].
    #[arg(long, value_name = "GENERATIONS")]
    pub window: Option<u32>,
    /// Wells sampled per generation from beams started in the steady state
    /// of long games and of the master beam's game [default: 50000].
    #[arg(long, value_name = "WELLS")]
    pub start_samples: Option<usize>,
    /// The steady-state sampling beams' width [default: 100].
    #[arg(long, value_name = "WIDTH")]
    pub start_width: Option<usize>,
    /// A steady-state sampling beam starts every PIECES pieces from piece
    /// 100 of each long game and of the master beam's game [default: 25].
    #[arg(long, value_name = "PIECES")]
    pub start_every: Option<u32>,
    /// A training beam that dies after this many pieces gets a target
    /// graded by how late it died [default: 10].
    #[arg(long, value_name = "PIECES")]
    pub graded_from: Option<u32>,
    /// The life term: a training beam that survives its pieces goes on to
    /// this piece, and the fit lowers the target of one that dies by then
    /// (0: off) [default: 0].
    #[arg(long, value_name = "PIECES")]
    pub life_pieces: Option<u32>,
    /// The life term's weight, in standard deviations of the targets, for
    /// a beam that dies at the first piece past its own (falling to nothing
    /// at --life-pieces) [default: 1 with --life-pieces].
    #[arg(long, value_name = "SDS", allow_negative_numbers = true)]
    pub life_weight: Option<f64>,
    /// The far share: a surviving training beam's target moves this share
    /// of the way from its value at its last piece to its value at
    /// --life-pieces, where it lived that long (0 to 1; needs the life
    /// term) [default: 0].
    #[arg(long, value_name = "SHARE", allow_negative_numbers = true)]
    pub far_share: Option<f64>,
    /// The reach term: a sampled well the master beam kept gets up to this
    /// many standard deviations more in its target, the further its line
    /// of play lasted in that beam (up to --reach-horizon pieces), against
    /// the other kept wells of its depth (0: off) [default: 0].
    #[arg(long, value_name = "SDS", allow_negative_numbers = true)]
    pub reach_share: Option<f64>,
    /// The pieces at which the reach term stops counting [default: 50 with
    /// --reach-share].
    #[arg(long, value_name = "PIECES")]
    pub reach_horizon: Option<u32>,
    /// Samples from the gate's wide games: up to N wells a depth of each
    /// finished game from the family its beam went on with, and N from all
    /// its wells, each labelled with how far its line lasted (for the
    /// reach term), added to a generation's samples (0: none) [default: 0].
    #[arg(long, value_name = "N")]
    pub wide_samples: Option<u32>,
    /// The wide samples come from the games of the last this many gates
    /// that played wide games, the champion's and the candidate's
    /// [default: 2 with --wide-samples].
    #[arg(long, value_name = "GATES")]
    pub wide_gates: Option<u32>,
    /// The wide samples leave out the games the champion's own wide
    /// samples came from, so that a fit from the champion reads only games
    /// it has not read (needs --wide-samples; `=false` turns it off in a
    /// fork) [default: off].
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub wide_unread: Option<bool>,
    /// With --wide-unread, a generation left fewer unread games than this
    /// reaches back over earlier gates, one at a time, until it has as
    /// many (a new champion's first successor otherwise reads the
    /// champion's own gate alone) [default: 0, the last --wide-gates gates].
    #[arg(long, value_name = "GAMES")]
    pub wide_unread_min: Option<u32>,
    /// The wide samples leave out the games from the starts the
    /// generation's own gate plays, so that its wide games go on from
    /// wells whose continuations the fit never read (needs --wide-samples
    /// and --gate-wide-rotate; `=false` turns it off in a fork) [default:
    /// off].
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub wide_spare_starts: Option<bool>,
    /// The gate's search width (a candidate net becomes the champion only
    /// if it survives longer from the gate's positions) [default: 300].
    #[arg(long, value_name = "WIDTH")]
    pub gate_width: Option<usize>,
    /// Pieces the gate plays at most from each position [default: 300].
    #[arg(long, value_name = "PIECES")]
    pub gate_cap: Option<u32>,
    /// The gate's steady-state starts: the 366-line record's piece 100,
    /// then every PIECES pieces [default: 20]. Smaller is more positions,
    /// a gate less noisy and slower.
    #[arg(long, value_name = "PIECES")]
    pub gate_every: Option<u32>,
    /// The gate also plays the openings of five other records (148 to 289
    /// lines): a start every PIECES pieces before piece 100 of each; 0 for
    /// none [default: 20].
    #[arg(long, value_name = "PIECES")]
    pub gate_openings: Option<u32>,
    /// A candidate becomes the champion only if it survives more pieces a
    /// gate position than the champion by more than K standard errors of
    /// the paired difference [default: 0, any more pieces in all].
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub gate_margin: Option<f64>,
    /// The standard error of --gate-margin counts the positions of one game
    /// in the same PIECES-long stretch (from piece 0) as one draw:
    /// positions five pieces apart often die at the same piece [default: 0,
    /// each position a draw].
    #[arg(long, value_name = "PIECES")]
    pub gate_block: Option<u32>,
    /// The gate also plays one game from the empty well at each of these
    /// widths (comma-separated), as a master beam does, when the positions
    /// keep a candidate; it stays the champion only if its games clear at
    /// least as many lines in all as the champion's (less
    /// --gate-wide-slack). The champion's game at
    /// the master width is then its next master beam [default: none].
    #[arg(long, value_name = "WIDTHS", value_delimiter = ',')]
    pub gate_wide: Option<Vec<usize>>,
    /// The gate's wide games start from the wells after these pieces of
    /// --gate-wide-game (the 366-line record; comma-separated), with its
    /// history, instead of the empty well: games in the steady state, where
    /// a record run lives (needs --gate-wide) [default: none].
    #[arg(long, value_name = "PIECES", value_delimiter = ',')]
    pub gate_wide_from: Option<Vec<u32>>,
    /// Each gate plays only N of --gate-wide-from's starts, the next N in
    /// turn each generation (generation g from the (g × N)th, cyclically),
    /// the champion's games as well as the candidate's: every gate a fresh
    /// draw for both, not the champion's games that kept it, and a run's
    /// gates spread over more starts (fewer than --gate-wide-from's
    /// starts) [default: every start at every gate].
    #[arg(long, value_name = "N")]
    pub gate_wide_rotate: Option<u32>,
    /// Every gate plays its wide games, also when the positions reject the
    /// candidate (whose verdict stays): fresh games for the next
    /// generations' --wide-samples at every gate (needs --gate-wide;
    /// `=false` turns it off in a fork) [default: off, only a candidate the
    /// positions keep plays them].
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub gate_wide_always: Option<bool>,
    /// A candidate the positions keep stays kept while its wide games
    /// fall short of the champion's by at most this many lines in all
    /// (about one standard error of their sum: 22 for three games at width
    /// 10,000 from the 366 record's wells; needs --gate-wide) [default: 0,
    /// at least as many lines].
    #[arg(long, value_name = "LINES")]
    pub gate_wide_slack: Option<u32>,
    /// The gate's steady-state positions take turns over these games (by
    /// name, comma-separated: the gate's game dnf-366 or an opening game
    /// long enough, such as knewjade-289): each gate plays one of them,
    /// the next in turn that did not keep the champion, and measures the
    /// champion there afresh, so no candidate meets the luck that kept the
    /// champion. A fork may turn it on at any generation [default: the
    /// same positions at every gate].
    #[arg(long, value_name = "GAMES", value_delimiter = ',')]
    pub gate_rotate: Option<Vec<String>>,
    /// The games whose steady states the gate plays (by name,
    /// comma-separated, among the embedded games: dnf-302, dnf-366 and the
    /// openings, such as knewjade-289 and tim-232); the wide games keep
    /// starting from the game they did (--gate-wide-game moves them)
    /// [default: dnf-366].
    #[arg(long, value_name = "GAMES", value_delimiter = ',')]
    pub gate_games: Option<Vec<String>>,
    /// The game the gate's wide games start from at --gate-wide-from's
    /// pieces (an embedded game, by name); the gate may not judge on it
    /// when --wide-samples trains on its games [default: the first gate
    /// game, dnf-366].
    #[arg(long, value_name = "GAME")]
    pub gate_wide_game: Option<String>,
    /// Each generation plays a master beam of its own, also when the
    /// champion has not changed (then 5 % wider for each one the champion
    /// played before, up to 45 %), so that the window holds several games
    /// (`=false` turns it off in a fork) [default: off, such a beam is
    /// taken over].
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub fresh_masters: Option<bool>,
    /// Print one JSON object alone on standard output, holding every
    /// generation's figures (the lines of text go to standard error, or
    /// nowhere with --quiet).
    #[arg(long)]
    pub json: bool,
    /// No progress bars or per-epoch lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Train even when the master beam's width seems to need more memory
    /// than the machine has.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// Beam width: wells kept per depth [default: 2000; a resume: the
    /// run's].
    #[arg(long)]
    pub width: Option<usize>,
    /// Stop after this many pieces (the search also stops when every child
    /// ends the game) [default: 10000; a resume: the run's, and a value
    /// given here becomes the run's].
    #[arg(long, value_name = "DEPTH")]
    pub max_depth: Option<u32>,
    /// Worker threads [default: every core; a resume: the run's].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Shard each depth over this many timely workers per process (the
    /// sharded search of docs/distributed.md) instead of the kernel's
    /// threads: the depth files are the same, against every enemy.
    #[arg(long, conflicts_with = "threads")]
    pub workers: Option<usize>,
    /// With --processes: this process's number, from 0. Process 0 holds
    /// the run folder (--out or --resume); the others take the same search
    /// flags and serve it [default: 0].
    #[arg(long, value_name = "I")]
    pub process: Option<usize>,
    /// Run the sharded search over this many processes [default: the
    /// hostfile's lines, or 1].
    #[arg(long, value_name = "N")]
    pub processes: Option<usize>,
    /// The processes' addresses, one `host:port` per line, by process
    /// number (timely's hostfile; blank lines and `#` comments skipped)
    /// [default: 127.0.0.1, ports 2101 on].
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,
    /// Heuristic weights, a TOML file (default: data/weights/dnf-86.toml's
    /// values, built in; a resume: the run's).
    #[arg(long, value_name = "FILE", conflicts_with = "net")]
    pub weights: Option<PathBuf>,
    /// Rank wells with this neural net (a .nnue file, as `hatetris train`
    /// writes) instead of the heuristic. The run folder keeps a copy
    /// (net.nnue), so a resume needs no --net.
    #[arg(long, value_name = "FILE")]
    pub net: Option<PathBuf>,
    /// The lookahead (a resume: the run's).
    #[command(flatten)]
    pub quiescent: Quiescent,
    /// The lookahead's cost per hypothetical clear (a resume: the run's).
    #[command(flatten)]
    pub chain_step: ChainStepCost,
    /// Who gives the pieces [default: hatetris; a resume: the run's].
    #[arg(long, value_parser = enemy_parser())]
    pub enemy: Option<EnemyKind>,
    /// Keep at most MOST wells of a depth that descend from any one well
    /// BACK pieces earlier, so that the beam keeps more than one line of
    /// play (the best of a pool of twice the width, filled with the best
    /// passed over when other lines are too few). Needs an enemy that
    /// keeps a history (hatetris, brzustowski); not sharded [default:
    /// none; a resume: the run's].
    #[arg(long, value_name = "BACK:MOST")]
    pub lineage_cap: Option<hatetris::run::LineageCap>,
    /// The run folder (default: a new folder under runs/).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub out: Option<PathBuf>,
    /// Continue the run in this folder from its last complete depth, with
    /// the run's own settings (a flag given too must agree with them).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Start from a game: the well its replay reaches after --at pieces
    /// (played against --enemy), with the game's whole history, so the
    /// enemy's loop rule counts every well of it. Depths, the score and
    /// the replay written are the whole game's. The replay itself, `-` for
    /// standard input, or `@FILE`. Sharded too: with --processes, give
    /// every process the same --from and --at.
    #[arg(long, value_name = "REPLAY")]
    pub from: Option<String>,
    /// With --from: start after this many pieces [default: the game's last
    /// well before it ended].
    #[arg(long, value_name = "PIECE")]
    pub at: Option<u32>,
    /// Print one JSON object alone on standard output (the lines of text go
    /// to standard error, or nowhere with --quiet):
    /// {"score":…,"best_depth":…,"depth":…,"keys":…,"replay":"…","out":"DIR"},
    /// `best_depth` being the best game's depth and `depth` the last
    /// complete one, as in `status --json`.
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no per-depth lines.
    #[arg(long, short)]
    pub quiet: bool,
    /// Search even when the width seems to need more memory than the
    /// machine has.
    #[arg(long)]
    pub force: bool,
}

/// `--enemy`: one of the game's enemies, by name (the help lists them).
pub fn enemy_parser() -> impl clap::builder::TypedValueParser<Value = EnemyKind> {
    clap::builder::PossibleValuesParser::new(EnemyKind::ALL.map(EnemyKind::name))
        .map(|name| name.parse::<EnemyKind>().expect("a listed name"))
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The run, training or tuning folder.
    pub dir: PathBuf,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct KeyframesArgs {
    /// The run folder.
    pub dir: PathBuf,
    /// Folders that hold some of a sharded run's shard-NNNN folders (each
    /// machine's `--out`), when the run folder does not hold them all.
    pub shards: Vec<PathBuf>,
    /// Which game.
    #[arg(long, value_enum, default_value_t = PickArg::Best)]
    pub pick: PickArg,
    /// A replay format, or wells (one well per line, 20 integers).
    #[arg(long, value_enum, default_value_t = KeyframesFormat::Base2048)]
    pub format: KeyframesFormat,
    /// Print one JSON object instead: the game's score, depth and key
    /// count, and the replay in --format (or the wells, as arrays of 20
    /// integers).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The well: 20 integers, or a drawing of `.` and `#` rows (top first;
    /// missing rows at the top are empty); `-` reads standard input, `@FILE`
    /// a file.
    #[arg(value_name = "WELL")]
    pub well: Option<String>,
    /// Lines cleared so far (the score term).
    #[arg(long, value_name = "LINES", default_value_t = 0)]
    pub score: u32,
    /// Heuristic weights, a TOML file (default: the built-in dnf-86 weights).
    #[arg(long, value_name = "FILE", conflicts_with = "net")]
    pub weights: Option<PathBuf>,
    /// Show this neural net's value (a .nnue file) instead of the heuristic.
    #[arg(long, value_name = "FILE")]
    pub net: Option<PathBuf>,
    /// With --net: list the features that move the value most.
    #[arg(long, requires = "net")]
    pub explain: bool,
    /// Add the quiescent lookahead, up to DEPTH single-line clears (1 to
    /// 32; 32, no cap, when given without a value), as everywhere:
    /// `--quiescent WELL`, `--quiescent 5 WELL` and `WELL --quiescent 5`
    /// all read as meant.
    // Read as text: clap hands the well to a flag with an optional value
    // (`--quiescent WELL`), and `split_optional` gives it back.
    #[arg(long, value_name = "DEPTH", num_args = 0..=1, default_missing_value = "32")]
    pub quiescent: Option<String>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum MovegenCmd {
    /// For each well (20 integers per line), print one JSON line in the format
    /// of the golden move-generation vectors: the well, the children of every
    /// piece (S Z O I L J T, each `[[20 rows], lines]`, deduplicated and sorted),
    /// and the piece HATETRIS gives.
    Children {
        /// File of wells; standard input if absent.
        #[arg(long)]
        wells: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum BenchCmd {
    /// Single-thread move generation: the piece choice, the choice plus its
    /// children, and all seven pieces' children, in µs per well (median of runs).
    Movegen(BenchMovegenArgs),
    /// Single-thread cost per child over the children of the wells: the
    /// heuristic, and with --net a neural net next to it.
    Eval(BenchEvalArgs),
    /// A fixed search from the empty well with the default weights: per
    /// depth the children, the kept count and a hash of the depth's content.
    /// These must not change when the code is refactored, whatever the
    /// thread count; the time is reported too.
    ///
    /// With several thread counts (`--threads 1,2,8`) the same search runs
    /// once per count, in the order given, and each must give the same
    /// signature (a difference is an error). The per-depth table is the
    /// first count's. For each count, one line:
    ///
    /// - seconds: the search's wall-clock time; ms/depth: that over the
    ///   depths; us/child: that over the children generated;
    /// - speed-up: the first count's time over this count's;
    /// - the phase split: where the time went, summed over the depths
    ///   (expand: reading, expanding and costing the beam on every thread;
    ///   select: the final cut and sort; ancestry: the loop-prevention
    ///   history taking the new beam; manifest: the manifest and the log
    ///   line; then, marked "alongside expand", the two that run during the
    ///   next depth's expansion and are part of its time: write, the depth
    ///   file, and snapshot, the history's);
    /// - the kept set's lock: the time it was held and waited for, summed
    ///   over the threads, as a share of their expand time;
    /// - idle: the time threads sat out of work at the end of each
    ///   expansion while the others finished their last part, summed over
    ///   the threads, as a share of their expand time.
    ///
    /// With `--repeat R` the list runs R times over, in turn, and each
    /// count's line is its median run (all runs' seconds are listed).
    ///
    /// Then, when the list holds 1 and a larger count n, Amdahl's law read
    /// backwards: with S the speed-up of n threads over 1, the serial share
    /// s = (n/S - 1)/(n - 1) is the part of the 1-thread time that did not
    /// get faster, and the speed-up limits 1/(s + (1 - s)/m) at m = 16, 64
    /// and 128 threads are what that share would allow on a bigger box (if
    /// nothing else, such as memory bandwidth, ran out first).
    ///
    /// That share also counts what the machine itself takes away when n
    /// cores work at once (shared caches, memory bandwidth, a lower clock).
    /// `--copies` measures it: n independent 1-thread searches at once. If
    /// each takes t_c where one alone takes t_1, no program gets more than
    /// n t_1 / t_c from n threads here, and the serial share against that
    /// machine, (n t_n / t_c - 1)/(n - 1), is what is left to the program.
    /// Timings are noisy: compare counts from one invocation, on a quiet
    /// machine, with `--repeat`.
    Search(BenchSearchArgs),
    /// The strength suite: how long each evaluator survives and how many
    /// lines it clears, from fixed start positions in long games (the
    /// public records and games this engine found, each with the game's
    /// whole history, which HATETRIS's loop rule counts): per start a small
    /// search of --width plays until it dies or reaches the suite's cap of
    /// pieces. Per start: pieces survived, lines, lines per piece after the
    /// first 100; over the suite: deaths per 1,000 pieces. With two or more
    /// evaluators, side by side, each against the first (the baseline): the
    /// paired difference of pieces and of lines over the starts, its mean
    /// and standard error.
    ///
    /// The suite (data/strength/suite.json, its README says how the starts
    /// were chosen) holds 20 starts, 8 of them the 3,711-line record's,
    /// for judging only, and a cap of 300 pieces. At the default width
    /// (300) it runs in minutes on 2 cores: on the project's 2-core
    /// machine with --threads 2, about 20 s for the shipped net with the
    /// lookahead, 4 s for the 86-record weights, 62 s for the tuned weights
    /// with the lookahead (the lookahead costs the heuristic most). The
    /// figures depend only on the suite, the evaluators and the width: the
    /// same on any thread count. Progress goes to standard error: a bar
    /// over the starts on a terminal, a line for each start as it ends in a
    /// log (nothing with --json).
    ///
    /// Example: `hatetris bench strength --net data/nets/best.nnue
    /// --quiescent --weights data/weights/dnf-86.toml`.
    #[command(after_help = EXAMPLES_STRENGTH)]
    Strength(BenchStrengthArgs),
}

#[derive(Args, Debug)]
pub struct BenchStrengthArgs {
    #[command(flatten)]
    pub evaluators: Ranked,
    /// Beam width of each start's search [default: 300].
    #[arg(long)]
    pub width: Option<usize>,
    /// Pieces each start's search plays at most [default: the suite's].
    #[arg(long)]
    pub cap: Option<u32>,
    /// The suite file (data/strength/suite-wide.json: 53 starts, about
    /// 2.7 times the time, for evaluators the default suite cannot tell
    /// apart; data/strength/suite-3711.json: 161 starts in the 3,711-line
    /// record alone, judging only, for nets the wide suite cannot).
    #[arg(long, default_value = hatetris::strength::SUITE_FILE)]
    pub suite: PathBuf,
    /// The paired differences' standard errors count the starts of one game
    /// in the same PIECES-long stretch (from piece 0) as one draw: starts a few pieces apart often die at the same piece, and the
    /// plain error counts each as a draw [default: 0, each start a draw].
    #[arg(long, value_name = "PIECES", default_value_t = 0)]
    pub block: u32,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// One JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// One evaluator of `bench strength`: a weights file or a net, and its
/// lookahead.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedBy {
    /// The weights file or the net file.
    pub contender: Contender,
    /// The quiescent lookahead's depth, if on.
    pub quiescent: Option<u8>,
    /// The lookahead's cost per hypothetical clear (0: none).
    pub chain_step_cost: f64,
}

/// `bench strength`'s `--weights`, `--net`, `--quiescent` and
/// `--chain-step-cost`, in the order given: a `--quiescent` (or
/// `--chain-step-cost`) after an evaluator is that evaluator's, one before
/// every evaluator is all of theirs.
#[derive(Clone, Debug, Default)]
pub struct Ranked(pub Vec<RankedBy>);

impl clap::FromArgMatches for Ranked {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut all: Vec<(usize, RankedBy)> = contenders_in_order(m)
            .into_iter()
            .map(|(at, contender)| {
                let ranked = RankedBy {
                    contender,
                    quiescent: None,
                    chain_step_cost: 0.0,
                };
                (at, ranked)
            })
            .collect();
        if let (Some(depths), Some(at)) = (m.get_many::<u8>("quiescent"), m.indices_of("quiescent"))
        {
            for (at, &depth) in at.zip(depths) {
                match all.iter().rposition(|(i, _)| *i < at) {
                    Some(k) => all[k].1.quiescent = Some(depth),
                    None => all.iter_mut().for_each(|(_, r)| r.quiescent = Some(depth)),
                }
            }
        }
        if let (Some(costs), Some(at)) = (
            m.get_many::<f64>("chain-step-cost"),
            m.indices_of("chain-step-cost"),
        ) {
            for (at, &cost) in at.zip(costs) {
                match all.iter().rposition(|(i, _)| *i < at) {
                    Some(k) => all[k].1.chain_step_cost = cost,
                    None => all.iter_mut().for_each(|(_, r)| r.chain_step_cost = cost),
                }
            }
        }
        Ok(Ranked(all.into_iter().map(|(_, r)| r).collect()))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for Ranked {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(contender_arg(
            "weights",
            "A weights file for the heuristic. Give --weights and --net as often as wanted, mixed: the first given is the baseline",
        ))
        .arg(contender_arg("net", "A net file (.nnue); mixes with --weights"))
        .arg(
            clap::Arg::new("quiescent")
                .long("quiescent")
                .value_name("DEPTH")
                .action(clap::ArgAction::Append)
                .num_args(0..=1)
                .default_missing_value("32")
                .value_parser(clap::value_parser!(u8).range(1..=32))
                .help("Rank with the quiescent lookahead, up to DEPTH clears (32 without a value), for the evaluator given just before it; given before every evaluator, for all of them"),
        )
        .arg(
            clap::Arg::new("chain-step-cost")
                .long("chain-step-cost")
                .value_name("COST")
                .action(clap::ArgAction::Append)
                .value_parser(clap::value_parser!(f64))
                .help("Add COST to a lookahead chain's point per hypothetical clear (a net with --quiescent), for the evaluator given just before it; given before every evaluator, for all of them"),
        )
        .group(
            clap::ArgGroup::new("ranked")
                .args(["weights", "net"])
                .multiple(true)
                .required(true),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[derive(Args, Debug)]
pub struct BenchSearchArgs {
    /// Beam width.
    #[arg(long, default_value_t = 10_000)]
    pub width: usize,
    /// Depths to search.
    #[arg(long, default_value_t = 30)]
    pub depths: u32,
    /// Worker threads: one count, or several (`1,2,8`, or the flag
    /// repeated) to run the search once per count and compare (default:
    /// every core).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Also run the search sharded over this many timely workers in one
    /// process (`search --workers`), once per count (`2`, `1,2`): after the
    /// thread counts, with the same signature required. Speed-ups are
    /// against the first run; Amdahl's figures use the thread counts only.
    #[arg(long, value_delimiter = ',')]
    pub workers: Vec<usize>,
    /// The lookahead.
    #[command(flatten)]
    pub quiescent: Quiescent,
    /// The lookahead's cost per hypothetical clear.
    #[command(flatten)]
    pub chain_step: ChainStepCost,
    /// Rank wells with this neural net (a .nnue file) instead of the
    /// heuristic, built as `hatetris search --net` builds it: with
    /// `--quiescent`, the record configuration.
    #[arg(long, value_name = "FILE")]
    pub net: Option<PathBuf>,
    /// Heuristic weights, a TOML file (default: the built-in dnf-86 weights).
    #[arg(long, value_name = "FILE", conflicts_with = "net")]
    pub weights: Option<PathBuf>,
    /// Keep the run folder here (default: a temporary folder, removed).
    /// With several thread counts, the first count's run is kept (the
    /// others made the same files).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run the list of counts this many times over, in turn (1,2,1,2…);
    /// each count's figures are then those of its median run, which a
    /// noisy machine needs.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub repeat: u32,
    /// Also measure the machine's own limit: as many independent 1-thread
    /// searches as the largest count, all at once. What each loses against
    /// one alone (shared caches, memory bandwidth, clock boost) no program
    /// can win back, and the serial share is then also given against it.
    #[arg(long)]
    pub copies: bool,
    /// Print one JSON object alone on standard output (the text goes to
    /// standard error): {"runs": [one per count, with its figures],
    /// "summary": {speed-ups, serial share, limits}}; hashes and the
    /// signature as 16 hexadecimal digits.
    #[arg(long)]
    pub json: bool,
    /// Search even when the width seems to need more memory than the
    /// machine has.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct BenchEvalArgs {
    /// File of wells, 20 integers per line [default: the 2,000 wells of
    /// data/bench-wells.txt, built into the binary].
    #[arg(long, value_name = "FILE")]
    pub wells: Option<PathBuf>,
    /// The lookahead's depth for its timings (the lookahead is always timed
    /// too; 32 when not given).
    #[command(flatten)]
    pub quiescent: Quiescent,
    /// Also time this neural net (a .nnue file), with each kernel, next to
    /// the heuristic, all through the search's batch call.
    #[arg(long, value_name = "FILE")]
    pub net: Option<PathBuf>,
    /// Also time the heuristic with these weights (for example with the
    /// reach terms weighted), next to the default weights.
    #[arg(long, value_name = "FILE", conflicts_with = "net")]
    pub weights: Option<PathBuf>,
    /// End with one JSON line.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchMovegenArgs {
    /// File of wells, 20 integers per line [default: the 2,000 wells of
    /// data/bench-wells.txt, built into the binary].
    #[arg(long, value_name = "FILE")]
    pub wells: Option<PathBuf>,
    /// Timed runs; the median is reported, with the fastest and slowest.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// End with one JSON line: {"choice_us":…,"chosen_children_us":…,"all7_children_us":…}.
    #[arg(long)]
    pub json: bool,
    /// Also time the piece choice with transitions computed directly against
    /// transitions looked up in an ahash map.
    #[arg(long)]
    pub transitions: bool,
}

#[derive(Subcommand, Debug)]
pub enum ReplayCmd {
    /// Play a replay as the game does and print the final score as the last line.
    Score {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The enemy.
        #[arg(long, default_value = "hatetris", value_parser = enemy_parser())]
        enemy: EnemyKind,
        /// Print one JSON object instead: the score, the pieces (its
        /// depth), the keys and those used, and whether the game is over.
        #[arg(long)]
        json: bool,
    },
    /// Step through a replay piece by piece: each lock's number, piece and
    /// lines so far, then the well after it (drawn as `eval` reads it).
    Show {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The enemy.
        #[arg(long, default_value = "hatetris", value_parser = enemy_parser())]
        enemy: EnemyKind,
        /// The first lock shown (1 is the first piece).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        from: Option<u32>,
        /// The last lock shown (past the game's end means its end).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        to: Option<u32>,
        /// One line per lock (its piece, lines, score and the well's filled
        /// cells) and the final well, without each lock's well.
        #[arg(long)]
        table: bool,
        /// Print JSON instead of text (the locks in --from..--to, no wells).
        #[arg(long, conflicts_with = "table")]
        json: bool,
    },
    /// Encode keys (L, R, D, U) in one of the game's replay formats.
    Encode {
        /// The keys: the string itself, `-` for standard input, or `@FILE`.
        keys: String,
        /// The replay format (base2048 is what the game exports).
        #[arg(long, value_enum, default_value_t = ReplayFormat::Base2048)]
        format: ReplayFormat,
    },
    /// Re-encode a replay (in any of the game's formats, found from its
    /// text) in another format.
    Convert {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The format to write.
        #[arg(long, value_enum)]
        format: ReplayFormat,
    },
    /// Draw a game: its final well, or with --every N a strip of wells
    /// through the game (every Nth lock, and the last). PNG, or SVG when
    /// the file's name ends in .svg.
    Render {
        /// The replay: the string itself, `-` for standard input, or `@FILE`.
        replay: String,
        /// The picture to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Draw the well after every Nth lock too.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        every: Option<u32>,
        /// The enemy.
        #[arg(long, default_value = "hatetris", value_parser = enemy_parser())]
        enemy: EnemyKind,
    },
    /// Build a replay from a chain of wells (one per line, 20 integers, each
    /// the well after one more lock; the empty starting well is implied).
    FromWells {
        /// The file of wells: `FILE` or `@FILE`, `-` for standard input.
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The enemy.
        #[arg(long, default_value = "hatetris", value_parser = enemy_parser())]
        enemy: EnemyKind,
        /// The replay format.
        #[arg(long, value_enum, default_value_t = ReplayFormat::Base2048)]
        format: ReplayFormat,
    },
}

/// How the tuner's fitness is measured (shared by `tune` and `compare`).
#[derive(Args, Debug, Clone)]
pub struct FitnessArgs {
    /// Beam width of the reference game and of every fitness beam
    /// [tune default: 10000; a resume: the folder's].
    #[arg(long)]
    pub width: Option<usize>,
    /// The lookahead of the reference game and every fitness beam.
    #[command(flatten)]
    pub quiescent: Quiescent,
    /// Start wells taken from the reference game at evenly spaced depths
    /// (depth 0 first) [default: 4].
    #[arg(long)]
    pub starts: Option<usize>,
    /// Pieces each fitness beam plays from its start well at most (it stops
    /// earlier when it dies) [default: 10000, in practice until it dies;
    /// a window of 30 misled the tuner].
    #[arg(long)]
    pub pieces: Option<u32>,
    /// Beams per start well: the weights as given, then K − 1 copies with
    /// every weight moved by at most a billionth of itself, which breaks
    /// exact ties between wells differently (one such tie moved a game from
    /// 42 lines to 35): the mean over copies measures the weights, not one
    /// tie's luck [default: 1].
    #[arg(long, value_name = "K")]
    pub jitter: Option<usize>,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Go on even when the width seems to need more memory than the
    /// machine has (a beam per thread at once).
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The tuning folder (created if new; an existing one goes on with its
    /// own settings).
    pub dir: PathBuf,
    #[command(flatten)]
    pub fitness: FitnessArgs,
    /// The weights to start from (default: the 86-record weights).
    #[arg(long, value_name = "FILE", conflicts_with = "net")]
    pub weights: Option<PathBuf>,
    /// Tune this training net (a .f32 file, as `train` writes beside each
    /// net.nnue) instead of the weights: its output weights `out.0` …
    /// (and, named in --terms, `line_weight`), each in units of the output
    /// weights' root mean square. The folder keeps a copy.
    #[arg(long, value_name = "FILE.f32")]
    pub net: Option<PathBuf>,
    /// Measure each candidate from the positions of this strength suite
    /// (as `bench strength --suite`; none of its games for judging only),
    /// each with its game's history, instead of start wells of a reference
    /// game: the fitness is then the mean pieces survived, the default
    /// width 300 and --pieces the suite's cap. The folder keeps the suite
    /// with its replays.
    #[arg(long, value_name = "SUITE")]
    pub suite: Option<PathBuf>,
    /// The weights to tune, comma-separated (names as in the weights file,
    /// `erasability.S` for one piece; with --net, `out.K` and
    /// `line_weight`) [default: every weight; with --net, every output
    /// weight].
    #[arg(long, value_delimiter = ',')]
    pub terms: Option<Vec<String>>,
    /// Evaluations in all, the start weights' included [default: 200; a
    /// resume may raise it].
    #[arg(long)]
    pub budget: Option<usize>,
    /// CMA-ES's first step size, in units of 83.7646 (the 86-record
    /// weights' magnitude), or with --net of each term's unit [default:
    /// 0.3; with --net, 0.1].
    #[arg(long)]
    pub sigma: Option<f64>,
    /// Candidates per generation [default: CMA-ES's, 4 + 3 ln(dimension)].
    #[arg(long)]
    pub population: Option<usize>,
    /// CMA-ES's seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print one JSON object alone on standard output (the lines of text go
    /// to standard error, or nowhere with --quiet).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    #[command(flatten)]
    pub contenders: Contenders,
    #[command(flatten)]
    pub fitness: FitnessArgs,
    /// Take the start wells from this replay instead of the baseline's
    /// game: the replay itself, `-` for standard input, or `@FILE`.
    #[arg(long, value_name = "REPLAY")]
    pub reference: Option<String>,
    /// Keep the reference game's run folder here (default: a temporary
    /// folder, removed at the end).
    #[arg(long, value_name = "DIR")]
    pub reference_dir: Option<PathBuf>,
    /// No progress (the bar, or the lines of each contender on a log).
    #[arg(short, long)]
    pub quiet: bool,
    /// One JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One evaluator `compare` measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contender {
    /// The heuristic with a weights file.
    Weights(PathBuf),
    /// A net file.
    Net(PathBuf),
}

/// `compare`'s `--weights` and `--net`, in the order given (clap's derive
/// keeps each flag's values apart, so the order is read from the
/// matches' indices).
#[derive(Clone, Debug, Default)]
pub struct Contenders(pub Vec<Contender>);

/// A repeatable `--weights FILE` or `--net FILE` flag, for the commands
/// that measure several evaluators side by side (`compare`, `bench
/// strength`).
fn contender_arg(id: &'static str, help: &'static str) -> clap::Arg {
    clap::Arg::new(id)
        .long(id)
        .value_name("FILE")
        .action(clap::ArgAction::Append)
        .num_args(1)
        .value_parser(clap::value_parser!(PathBuf))
        .help(help)
}

/// Every `--weights` and `--net` given, with its place on the command line,
/// in that order (clap keeps each flag's values apart; the order mixes
/// them back).
fn contenders_in_order(m: &clap::ArgMatches) -> Vec<(usize, Contender)> {
    let mut all = Vec::new();
    let mut add = |id: &str, make: fn(PathBuf) -> Contender| {
        if let (Some(values), Some(at)) = (m.get_many::<PathBuf>(id), m.indices_of(id)) {
            all.extend(at.zip(values.cloned().map(make)));
        }
    };
    add("weights", Contender::Weights);
    add("net", Contender::Net);
    all.sort_by_key(|(at, _)| *at);
    all
}

impl clap::FromArgMatches for Contenders {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let all = contenders_in_order(m);
        Ok(Contenders(all.into_iter().map(|(_, c)| c).collect()))
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for Contenders {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(contender_arg(
            "weights",
            "A weights file, searched with --quiescent's lookahead when given. Give --weights and --net twice or more in all: the first given is the baseline, whose game at --width is the reference unless --reference is given",
        ))
        .arg(contender_arg(
            "net",
            "A net file (.nnue), searched with --quiescent's lookahead when given; mixes with --weights",
        ))
        .group(
            clap::ArgGroup::new("contenders")
                .args(["weights", "net"])
                .multiple(true)
                .required(true),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// A usage error as clap reports its own (its message and the command's
/// usage on standard error, exit code 2), for a rule the derive cannot
/// state; `path` is the subcommand's (`["status"]`).
fn usage_error(path: &[&str], kind: clap::error::ErrorKind, message: String) -> ! {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    for name in path {
        cmd.build();
        cmd = match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => break,
        };
    }
    cmd.error(kind, message).exit()
}

/// A flag with an optional value (`--flag [VALUE]`) beside a positional
/// argument: clap hands the positional to the flag when the flag comes
/// just before it (`--quiescent WELL`), so a value that is not a number
/// goes back to the positional when that is missing. Returns the flag's
/// value (`None`: not given; `default` when given alone) and the
/// positional; what cannot be read is a usage error (see
/// [`usage_error`]).
fn split_optional(
    path: &[&str],
    flag: &str,
    value: Option<&str>,
    positional: Option<&str>,
    default: &str,
    what: &str,
) -> (Option<String>, String) {
    use clap::error::ErrorKind;
    let number = |v: &str| v.parse::<u64>().is_ok();
    match (value, positional) {
        (Some(v), None) if !number(v) => (Some(default.to_string()), v.to_string()),
        (_, None) => usage_error(
            path,
            ErrorKind::MissingRequiredArgument,
            format!("the {what} argument is missing"),
        ),
        (v, Some(p)) => {
            if let Some(v) = v.filter(|v| !number(v)) {
                usage_error(
                    path,
                    ErrorKind::ValueValidation,
                    format!("invalid value '{v}' for '{flag}': not a number"),
                );
            }
            (v.map(str::to_string), p.to_string())
        }
    }
}

/// `value` as a number from `range`, or a usage error naming `flag` in
/// clap's own words.
fn in_range<T>(path: &[&str], flag: &str, value: &str, range: std::ops::RangeInclusive<T>) -> T
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match value.parse::<T>() {
        Ok(v) if range.contains(&v) => v,
        _ => usage_error(
            path,
            clap::error::ErrorKind::ValueValidation,
            format!(
                "invalid value '{value}' for '{flag}': {value} is not in {}..={}",
                range.start(),
                range.end()
            ),
        ),
    }
}

impl EvalArgs {
    /// The lookahead's depth and the well argument (see
    /// [`split_optional`]).
    pub fn quiescent_and_well(&self) -> (Option<u8>, String) {
        let path = ["eval"];
        let (q, well) = split_optional(
            &path,
            "--quiescent [<DEPTH>]",
            self.quiescent.as_deref(),
            self.well.as_deref(),
            "32",
            "WELL",
        );
        let depth = q.map(|q| in_range(&path, "--quiescent [<DEPTH>]", &q, 1..=32u8));
        (depth, well)
    }
}

impl StatusArgs {
    /// The seconds between two statuses and the run folder (see
    /// [`split_optional`]; the folder is kept as given, UTF-8 or not).
    pub fn watch_and_dir(&self) -> (Option<u64>, PathBuf) {
        let path = ["status"];
        let flag = "--watch [<SECONDS>]";
        let watch = self.watch.as_deref();
        let (w, dir) = match (&self.dir, watch) {
            (Some(dir), w) => (w.map(str::to_string), dir.clone()),
            (None, w) => {
                let (w, dir) = split_optional(&path, flag, w, None, "10", "DIR");
                (w, PathBuf::from(dir))
            }
        };
        let seconds = w.map(|w| in_range(&path, flag, &w, 1..=86_400u64));
        (seconds, dir)
    }
}
