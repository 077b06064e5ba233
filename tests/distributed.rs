//! The sharded depth (`hatetris::distributed`): whatever the number of timely
//! workers, one depth keeps exactly today's kernel's children, with the same
//! parents, in the same order.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hatetris::distributed;
use hatetris::enemy::EnemyKind;
use hatetris::evaluate::{Evaluator, Identity};
use hatetris::run::{self, store::DepthFile};
use hatetris::search::{self, bounded::Candidate, Search, Silent};
use hatetris::Well;

use crate::beam::{flat_search, opts, Flat};
use crate::util::{depth_contents, depth_files};

/// What identifies a kept child: its cost's bits, its well and its parent.
fn keys(kept: &[Candidate]) -> Vec<(u64, hatetris::well::PackedWell, u32)> {
    kept.iter()
        .map(|c| (c.cost.to_bits(), c.well, c.parent))
        .collect()
}

/// Runs today's search against `enemy` for `depths` at `width`, then checks
/// every depth sharded over 1, 2 and 3 workers against the kernel on the
/// same beam (and the kernel against the run's next depth file).
fn sharded_depths_equal_the_kernel(enemy: EnemyKind, width: usize, depths: u32) {
    let dir = tempfile::tempdir().unwrap();
    let search: Search = flat_search(width, enemy);
    search::start(dir.path(), &search, &opts(depths, 1), &Silent).unwrap();
    let mut sharded_any = false;
    for d in 0..depths {
        let file = DepthFile::open(&run::depth_path(dir.path(), d)).unwrap();
        let reference = search::expand_depth(&file, &search, 1).unwrap();
        let next = DepthFile::open(&run::depth_path(dir.path(), d + 1)).unwrap();
        let written: Vec<_> = next
            .read_all()
            .unwrap()
            .iter()
            .map(|s| s.well.pack())
            .collect();
        let wells: Vec<_> = reference.iter().map(|c| c.well).collect();
        assert_eq!(wells, written, "{enemy:?}: the kernel's depth {}", d + 1);
        let beam: Arc<[_]> = file.read_all().unwrap().into();
        for workers in 1..=3 {
            let got = distributed::expand_depth(
                Arc::clone(&beam),
                d,
                None,
                width,
                Arc::new(Flat),
                search.adversary,
                workers,
            )
            .unwrap()
            .kept;
            assert_eq!(
                keys(&got),
                keys(&reference),
                "{enemy:?}: depth {} on {workers} workers",
                d + 1
            );
        }
        sharded_any |= reference.len() == width;
    }
    assert!(
        sharded_any,
        "the beam reached its width: the cut was exercised"
    );
}

#[test]
fn sharded_depths_keep_the_kernels_children_against_mild() {
    sharded_depths_equal_the_kernel(EnemyKind::Mild, 500, 20);
}

#[test]
fn sharded_depths_keep_the_kernels_children_against_lovetris() {
    sharded_depths_equal_the_kernel(EnemyKind::Lovetris, 500, 20);
}

/// An enemy with a history needs the beam's snapshot, and one without
/// none: a mismatch is the caller's bug, reported, never guessed around.
#[test]
fn a_sharded_depth_needs_the_history_of_an_enemy_that_keeps_one() {
    let dir = tempfile::tempdir().unwrap();
    let search = flat_search(10, EnemyKind::Hatetris);
    search::start(dir.path(), &search, &opts(1, 1), &Silent).unwrap();
    let file = DepthFile::open(&run::depth_path(dir.path(), 0)).unwrap();
    let beam: Arc<[_]> = file.read_all().unwrap().into();
    let got = distributed::expand_depth(
        Arc::clone(&beam),
        0,
        None,
        10,
        Arc::new(Flat),
        search.adversary,
        2,
    );
    assert!(matches!(
        got,
        Err(distributed::DistributedError::History {
            enemy: EnemyKind::Hatetris,
            given: false,
            ..
        })
    ));
    let mild = hatetris::search::Adversary::new(EnemyKind::Mild);
    let got = distributed::expand_depth(beam, 0, Some(vec![].into()), 10, Arc::new(Flat), mild, 1);
    assert!(matches!(
        got,
        Err(distributed::DistributedError::History { given: true, .. })
    ));
}

/// Options that shard each depth of `search` over `workers` workers of this
/// process (`evaluator` is the search's, owned), up to `max_depth`, the
/// workers writing their shards' files in `out`.
fn sharded(
    search: &Search,
    evaluator: Arc<dyn Evaluator + Send>,
    workers: usize,
    max_depth: u32,
    out: &Path,
) -> hatetris::search::Options {
    sharded_from(search, None, evaluator, workers, max_depth, out)
}

/// [`sharded`], for a run from a game's `start` (`None`: the empty well).
fn sharded_from(
    search: &Search,
    start: Option<&run::Start>,
    evaluator: Arc<dyn Evaluator + Send>,
    workers: usize,
    max_depth: u32,
    out: &Path,
) -> hatetris::search::Options {
    let settings = run::Settings {
        start: start.cloned(),
        ..search.settings()
    };
    let shard = distributed::Shard {
        width: search.width,
        evaluator,
        adversary: search.adversary,
        settings: settings.run_id(),
        root: settings.root(),
        out: Some(out.to_path_buf()),
    };
    let mut o = opts(max_depth, 1);
    o.expander = Some(Arc::new(
        distributed::Cluster::start(&distributed::Topology::local(workers), shard).unwrap(),
    ));
    o
}

/// The sharded run in `a` holds, in its shards' files, the beams of the
/// one-file run in `b`, entry for entry, and the same history snapshots;
/// it holds no one-file depth, and checks out whole.
fn assert_same_files(a: &Path, b: &Path, what: &str) {
    assert!(depth_files(a).is_empty(), "{what}: one-file depths");
    let manifest = run::read_manifest_file(a).unwrap();
    assert!(manifest.shards.is_some(), "{what}: not sharded");
    assert_eq!(depth_contents(a), depth_contents(b), "{what}");
    assert_eq!(
        crate::util::snapshot_files(a),
        crate::util::snapshot_files(b),
        "{what}: the history"
    );
    let report = search::verify(a).unwrap();
    assert!(report.is_ok(), "{what}: {:?}", report.problems);
}

/// A test evaluator that steers the beam along a record's game: a well of
/// the record costs minus its place in the game (its last place, for a well
/// the game revisits), any other well costs more than all of them.
struct Follow(HashMap<Well, usize>);

impl Follow {
    /// Follows "knewjade loop basis", a game that revisits wells and whose
    /// spawn 281 HATETRIS's loop rule turns from S into Z.
    fn loop_basis() -> Follow {
        let records = crate::util::json_lines("replays.jsonl");
        let rec = records
            .iter()
            .find(|r| r["name"] == "knewjade loop basis")
            .expect("record");
        let wells = rec["wells"].as_array().unwrap().iter();
        Follow(
            wells
                .enumerate()
                .map(|(i, v)| (Well::from_board_unchecked(&crate::util::board(v)), i))
                .collect(),
        )
    }
}

impl Evaluator for Follow {
    fn identity(&self) -> Identity {
        Identity::new().with("test", "follow the loop basis record")
    }

    fn cost(&self, well: &Well, _score: f64) -> f64 {
        self.0.get(well).map_or(1e9, |&i| -(i as f64))
    }
}

/// The wells of every depth of a run, by depth.
fn beams(dir: &Path) -> Vec<Vec<Well>> {
    (0..)
        .map_while(|d| DepthFile::open(&run::depth_path(dir, d)).ok())
        .map(|f| f.read_all().unwrap().iter().map(|s| s.well).collect())
        .collect()
}

/// HATETRIS's loop prevention, sharded: the beam follows a game that
/// revisits wells, where the pieces depend on each entry's ancestry (the
/// same run against HATETRIS Mild, which keeps no history, leaves the
/// game). Over 1, 2 and 3 workers the run writes today's files.
#[test]
fn a_sharded_run_keeps_hatetris_loop_rule() {
    let follow = Follow::loop_basis();
    let depths = follow.0.values().max().copied().unwrap() as u32 + 2;
    for width in [1, 4] {
        let search = |enemy| Search::new(width, &follow, search::Adversary::new(enemy));
        let run = |enemy| {
            let dir = tempfile::tempdir().unwrap();
            search::start(dir.path(), &search(enemy), &opts(depths, 1), &Silent).unwrap();
            dir
        };
        let (plain, mild) = (run(EnemyKind::Hatetris), run(EnemyKind::Mild));
        let (with_rule, without) = (beams(plain.path()), beams(mild.path()));
        // The rule first bites at spawn 281: depth 282 differs.
        let first = with_rule.iter().zip(&without).position(|(a, b)| a != b);
        assert_eq!(first, Some(282), "width {width}: where the loop rule bites");
        for workers in 1..=3 {
            let dir = tempfile::tempdir().unwrap();
            let hatetris = search(EnemyKind::Hatetris);
            let o = sharded(
                &hatetris,
                Arc::new(Follow::loop_basis()),
                workers,
                depths,
                dir.path(),
            );
            search::start(dir.path(), &hatetris, &o, &Silent).unwrap();
            let what = format!("width {width} on {workers} workers");
            assert_same_files(dir.path(), plain.path(), &what);
        }
    }
}

/// A sharded run stopped and resumed, twice, against each enemy with a
/// history: the resumed cluster starts from the history snapshot on disk
/// (HATETRIS's ancestry; Brzustowski's states too), and the files equal an
/// uninterrupted run's of today's search.
#[test]
fn a_sharded_run_resumed_from_its_history_equals_an_uninterrupted_one() {
    for enemy in [EnemyKind::Hatetris, EnemyKind::Brzustowski] {
        let search = flat_search(200, enemy);
        let plain = tempfile::tempdir().unwrap();
        search::start(plain.path(), &search, &opts(30, 1), &Silent).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (leg, until) in [9, 21, 30].into_iter().enumerate() {
            let o = sharded(&search, Arc::new(Flat), 2, until, dir.path());
            match leg {
                0 => search::start(dir.path(), &search, &o, &Silent).unwrap(),
                _ => search::resume(dir.path(), &search, &o, &Silent).unwrap(),
            };
        }
        assert_same_files(dir.path(), plain.path(), &format!("{enemy:?}"));
    }
}

/// A whole run whose depths are sharded over 1, 2 or 3 workers
/// (`Options::expander`, as `hatetris search --workers`) writes the same
/// depth files, byte for byte, as today's search, and the same history
/// snapshots, against enemies with history (whose workers each read the
/// history the coordinator sent) and without.
#[test]
fn a_sharded_run_writes_the_same_depth_files() {
    for enemy in [
        EnemyKind::Mild,
        EnemyKind::Burgiel,
        EnemyKind::Hatetris,
        EnemyKind::Brzustowski,
    ] {
        let search = flat_search(300, enemy);
        let plain = tempfile::tempdir().unwrap();
        search::start(plain.path(), &search, &opts(20, 1), &Silent).unwrap();
        for workers in 1..=3 {
            let dir = tempfile::tempdir().unwrap();
            let o = sharded(&search, Arc::new(Flat), workers, 20, dir.path());
            search::start(dir.path(), &search, &o, &Silent).unwrap();
            let what = format!("{enemy:?} on {workers} workers");
            assert_same_files(dir.path(), plain.path(), &what);
        }
    }
}

/// A run from a game (the 366-line game after 500 pieces; against
/// Brzustowski, whose root state is the game's, after 15, since that game
/// ends at 18 against it) sharded over 2 workers: stopped at its root, before its first depth (as a kill there
/// leaves it), it resumes from the root, which its shards write again,
/// and ends with the files of the same run on the kernel's threads. Workers
/// told of another run (the empty well's settings and root) are refused
/// in one line before any file is written.
#[test]
fn a_sharded_run_from_a_game_resumed_from_its_root_equals_the_kernels() {
    let text = std::fs::read_to_string(crate::util::data("from-366.txt")).unwrap();
    for (enemy, at) in [(EnemyKind::Hatetris, 500), (EnemyKind::Brzustowski, 15)] {
        let (start, _) = run::Start::from_replay(text.trim(), Some(at), enemy).unwrap();
        let search = flat_search(200, enemy);
        let plain = tempfile::tempdir().unwrap();
        search::start_from(
            plain.path(),
            &search,
            Some(&start),
            &opts(at + 12, 1),
            &Silent,
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let wrong = sharded(&search, Arc::new(Flat), 2, at + 12, dir.path());
        let err = search::start_from(dir.path(), &search, Some(&start), &wrong, &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("another run"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
        drop(wrong);
        let dir = tempfile::tempdir().unwrap();
        for (leg, until) in [at, at + 12].into_iter().enumerate() {
            let o = sharded_from(&search, Some(&start), Arc::new(Flat), 2, until, dir.path());
            match leg {
                0 => search::start_from(dir.path(), &search, Some(&start), &o, &Silent).unwrap(),
                _ => search::resume(dir.path(), &search, &o, &Silent).unwrap(),
            };
            if leg == 0 {
                let manifest = run::read_manifest_file(dir.path()).unwrap();
                assert_eq!((manifest.depth, manifest.depths.len()), (at, 0));
            }
        }
        assert_same_files(dir.path(), plain.path(), &format!("{enemy:?} from a game"));
    }
}

/// Several processes on this machine, as `hatetris search --workers W
/// --process I --hostfile FILE` runs them: a hostfile of free ports.
struct Localhost {
    dir: tempfile::TempDir,
    processes: usize,
}

impl Localhost {
    fn new(processes: usize) -> Localhost {
        let dir = tempfile::tempdir().unwrap();
        // Ports the system gives out now, held until all are known.
        let listeners: Vec<_> = (0..processes)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let hosts: String = listeners
            .iter()
            .map(|l| format!("127.0.0.1:{}\n", l.local_addr().unwrap().port()))
            .collect();
        std::fs::write(dir.path().join("hosts"), hosts).unwrap();
        Localhost { dir, processes }
    }

    /// The run folder the processes share (on one machine).
    fn run(&self) -> std::path::PathBuf {
        self.dir.path().join("run")
    }

    /// `hatetris search FLAGS --process I --hostfile …` (output to files in
    /// the hostfile's folder), with `tail` (`--out DIR`, `--resume DIR`)
    /// for process 0; the others write their shards to `--out` the run
    /// folder.
    fn spawn(&self, process: usize, flags: &[&str], tail: &[&str]) -> Child {
        let run = self.run();
        let others = ["--out", run.to_str().unwrap()];
        self.spawn_with(process, flags, if process == 0 { tail } else { &others })
    }

    /// `hatetris search FLAGS --process I --hostfile … TAIL`, whichever
    /// the process.
    fn spawn_with(&self, process: usize, flags: &[&str], tail: &[&str]) -> Child {
        let name = |what: &str| self.dir.path().join(format!("{what}-{process}.txt"));
        Command::new(env!("CARGO_BIN_EXE_hatetris"))
            .arg("search")
            .args(flags)
            .args(["--quiet", "--process", &process.to_string(), "--hostfile"])
            .arg(self.dir.path().join("hosts"))
            .args(tail)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(name("out")).unwrap())
            .stderr(std::fs::File::create(name("err")).unwrap())
            .spawn()
            .unwrap()
    }

    /// Every process, 0 last; the children in process order.
    fn spawn_all(&self, flags: &[&str], tail: &[&str]) -> Vec<Child> {
        let mut children: Vec<Child> = (1..self.processes)
            .map(|p| self.spawn(p, flags, tail))
            .collect();
        children.insert(0, self.spawn(0, flags, tail));
        children
    }

    /// Every process, to its end: each must succeed.
    fn run_all(&self, flags: &[&str], tail: &[&str]) {
        let mut children = self.spawn_all(flags, tail);
        for (p, child) in children.iter_mut().enumerate() {
            assert!(finish(child).success(), "process {p}: {}", self.stderr(p));
        }
    }

    fn stderr(&self, process: usize) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("err-{process}.txt"))).unwrap()
    }
}

/// Waits for `child`, killing it (and failing) after a minute.
fn finish(child: &mut Child) -> ExitStatus {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("a process of the cluster hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The single-process search's folder for `flags`.
fn plain_run(flags: &[&str], dir: &Path) {
    let out = crate::cli::hatetris(
        &[
            &["search", "--quiet", "--threads", "1"],
            flags,
            &["--out", dir.to_str().unwrap()],
        ]
        .concat(),
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The CI check: 3 processes on 127.0.0.1 (two workers each) write
/// the single-process search's depth files, byte for byte, and the same
/// best game, against `enemy`.
fn three_processes_write_the_single_process_depth_files(enemy: &str) {
    let flags = [
        "--enemy",
        enemy,
        "--width",
        "300",
        "--max-depth",
        "30",
        "--workers",
        "2",
    ];
    let cluster = Localhost::new(3);
    let run = cluster.dir.path().join("run");
    cluster.run_all(&flags, &["--out", run.to_str().unwrap()]);
    let plain = tempfile::tempdir().unwrap();
    plain_run(&flags[..6], &plain.path().join("run"));
    assert_same_files(&run, &plain.path().join("run"), enemy);
    assert_eq!(
        std::fs::read(run.join("best-replay.txt")).unwrap(),
        std::fs::read(plain.path().join("run/best-replay.txt")).unwrap()
    );
}

#[test]
fn three_processes_on_localhost_write_the_single_process_depth_files() {
    three_processes_write_the_single_process_depth_files("lovetris");
}

/// HATETRIS's loop prevention reads every entry's ancestry, which each
/// process rebuilds from the coordinator's snapshot.
#[test]
fn three_processes_against_hatetris_write_the_single_process_depth_files() {
    three_processes_write_the_single_process_depth_files("hatetris");
}

/// Brzustowski's per-entry states come back from the processes that
/// expanded each entry.
#[test]
fn three_processes_against_brzustowski_write_the_single_process_depth_files() {
    three_processes_write_the_single_process_depth_files("brzustowski");
}

/// A run from a game (`--from`, the 366-line game after 500 pieces) over 2
/// processes × 1 worker, every process given the same `--from`, writes the
/// single-process run's files and replay, against HATETRIS; a process
/// started without it runs another search, refused in one line.
#[test]
fn two_processes_from_a_game_write_the_single_process_depth_files() {
    let game = format!("@{}", crate::util::data("from-366.txt").display());
    let flags = [
        "--from",
        &game,
        "--at",
        "500",
        "--width",
        "300",
        "--max-depth",
        "520",
        "--workers",
        "1",
    ];
    let cluster = Localhost::new(2);
    let run = cluster.run();
    cluster.run_all(&flags, &["--out", run.to_str().unwrap()]);
    let plain = tempfile::tempdir().unwrap();
    plain_run(&flags[..8], &plain.path().join("run"));
    assert_same_files(&run, &plain.path().join("run"), "from a game");
    assert_eq!(
        std::fs::read(run.join("best-replay.txt")).unwrap(),
        std::fs::read(plain.path().join("run/best-replay.txt")).unwrap()
    );
    // Process 1 without the start.
    let other = cluster.dir.path().join("other");
    let mut p1 = cluster.spawn_with(1, &flags[4..], &["--out", other.to_str().unwrap()]);
    let mut p0 = cluster.spawn_with(0, &flags, &["--out", other.to_str().unwrap()]);
    let status = finish(&mut p0);
    finish(&mut p1);
    let err = cluster.stderr(0);
    assert_eq!(status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("process 1 runs a search with other settings"),
        "{err}"
    );
}

/// A kill -9 of one process mid-run ends the others with one line and exit
/// code 1; started again, process 0 with `--resume DIR`, they finish the
/// run with the files of a run never interrupted.
#[test]
fn a_killed_process_then_a_resume_of_all_gives_the_same_files() {
    let flags = [
        "--enemy",
        "lovetris",
        "--width",
        "3000",
        "--max-depth",
        "50",
        "--workers",
        "1",
    ];
    let cluster = Localhost::new(3);
    let run = cluster.dir.path().join("run");
    let mut children = cluster.spawn_all(&flags, &["--out", run.to_str().unwrap()]);
    let until = Instant::now() + Duration::from_secs(60);
    while !run.join("shard-0002/depth-00005.beam").exists() {
        assert!(Instant::now() < until, "the run never reached depth 5");
        std::thread::sleep(Duration::from_millis(5));
    }
    children[1].kill().unwrap();
    children[1].wait().unwrap();
    for p in [0, 2] {
        let status = finish(&mut children[p]);
        let err = cluster.stderr(p);
        // Either the process saw its peer die, or (unlikely) the run ended
        // first.
        if !status.success() {
            assert_eq!(status.code(), Some(1), "process {p}: {err}");
            let lines: Vec<_> = err.lines().collect();
            assert_eq!(lines.len(), 1, "process {p}: {err}");
            assert!(lines[0].contains("the cluster stopped"), "{err}");
        }
    }
    // Process 0 takes its settings from the folder (and checks the flags
    // against it); the others from the same flags.
    cluster.run_all(&flags, &["--resume", run.to_str().unwrap()]);
    let plain = tempfile::tempdir().unwrap();
    plain_run(&flags[..6], &plain.path().join("run"));
    assert_same_files(&run, &plain.path().join("run"), "killed and resumed");
}

/// A folder per machine: each process writes its shards' files to its own
/// `--out`. Process 0 ends the run with its best score and says which
/// shard folders it lacks; a resume of all goes on from there (each worker
/// reads its own shard back for process 0); `keyframes` given every
/// machine's folder rebuilds the one-process run's game, and once the
/// shards are gathered the folder holds its beams. Against HATETRIS, whose
/// history's step reads the last beams (kept in memory, since the files
/// are elsewhere, and read back by the workers on resuming).
#[test]
fn a_folder_per_machine_runs_resumes_and_is_gathered_afterwards() {
    let flags = |depth: &'static str| {
        [
            "--enemy",
            "hatetris",
            "--width",
            "300",
            "--max-depth",
            depth,
            "--workers",
            "1",
        ]
    };
    let cluster = Localhost::new(2);
    let (mine, theirs) = (cluster.dir.path().join("m0"), cluster.dir.path().join("m1"));
    let second =
        |flags: &[&str]| cluster.spawn_with(1, flags, &["--out", theirs.to_str().unwrap()]);
    for (leg, depth) in ["12", "25"].into_iter().enumerate() {
        let mut p1 = second(&flags(depth));
        let tail = match leg {
            0 => ["--out", mine.to_str().unwrap()],
            _ => ["--resume", mine.to_str().unwrap()],
        };
        let mut p0 = cluster.spawn(0, &flags(depth), &tail);
        assert!(finish(&mut p0).success(), "{}", cluster.stderr(0));
        assert!(finish(&mut p1).success());
        let err = cluster.stderr(0);
        assert!(err.contains("lacks") && err.contains("shard-0001"), "{err}");
    }
    assert!(!mine.join("best-replay.txt").exists());
    assert!(!mine.join("shard-0001").exists() && !theirs.join("shard-0000").exists());
    let plain = tempfile::tempdir().unwrap();
    plain_run(&flags("25")[..6], &plain.path().join("run"));
    let expected = std::fs::read_to_string(plain.path().join("run/best-replay.txt")).unwrap();
    let kf = crate::cli::hatetris(
        &[
            "keyframes",
            mine.to_str().unwrap(),
            theirs.to_str().unwrap(),
        ],
        None,
    );
    assert!(kf.status.success(), "{}", crate::cli::stderr(&kf));
    assert_eq!(
        crate::cli::stdout(&kf).lines().next(),
        expected.lines().next()
    );
    // Without the other machine's folder, one line.
    let kf = crate::cli::hatetris(&["keyframes", mine.to_str().unwrap()], None);
    let err = crate::cli::stderr(&kf);
    assert!(!kf.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("shard-0001"), "{err}");
    // Gathered afterwards.
    let from = theirs.join("shard-0001");
    let to = mine.join("shard-0001");
    std::fs::create_dir(&to).unwrap();
    for f in std::fs::read_dir(&from).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
    assert_same_files(&mine, &plain.path().join("run"), "gathered");
}

/// A shard file damaged below the newest depths (a disk's fault): `verify`
/// names it, and a resume refuses the run in one error that names it,
/// rather than search on over files that may be good once it is restored.
/// A shard file missing at the newest depth (a kill between the shards'
/// writes and the manifest cannot leave that, but a lost disk can) makes
/// the resume fall back a depth, and the run still ends with the
/// uninterrupted run's beams.
#[test]
fn a_damaged_shard_file_is_named_and_the_newest_can_be_fallen_back_over() {
    let search = flat_search(200, EnemyKind::Hatetris);
    let plain = tempfile::tempdir().unwrap();
    search::start(plain.path(), &search, &opts(16, 1), &Silent).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let o = sharded(&search, Arc::new(Flat), 3, 12, dir.path());
    search::start(dir.path(), &search, &o, &Silent).unwrap();
    drop(o);
    // The newest depth of shard 2, gone: the run falls back to depth 11.
    let newest = run::shards::shard_depth_path(dir.path(), 2, 12);
    std::fs::remove_file(&newest).unwrap();
    let o = sharded(&search, Arc::new(Flat), 3, 16, dir.path());
    search::resume(dir.path(), &search, &o, &Silent).unwrap();
    drop(o);
    assert_same_files(dir.path(), plain.path(), "fallen back over a lost file");
    // Depth 5 of shard 1, one byte changed.
    let path = run::shards::shard_depth_path(dir.path(), 1, 5);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x20;
    std::fs::write(&path, bytes).unwrap();
    let report = search::verify(dir.path()).unwrap();
    assert!(
        report.problems.iter().any(|p| p.contains("shard-0001")),
        "{:?}",
        report.problems
    );
    let o = sharded(&search, Arc::new(Flat), 3, 20, dir.path());
    let err = search::resume(dir.path(), &search, &o, &Silent).unwrap_err();
    let said = err.to_string();
    assert!(said.contains("shard-0001"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
}

/// A process whose shards' folder cannot be written ends the run on every
/// process with one line that names it.
#[test]
fn a_shard_folder_that_cannot_be_written_is_named_in_one_line() {
    let flags = [
        "--enemy",
        "lovetris",
        "--width",
        "200",
        "--max-depth",
        "5",
        "--workers",
        "1",
    ];
    let cluster = Localhost::new(2);
    let run = cluster.run();
    let blocked = cluster.dir.path().join("blocked");
    std::fs::write(&blocked, "a file, not a folder").unwrap();
    let mut p1 = cluster.spawn_with(1, &flags, &["--out", blocked.to_str().unwrap()]);
    let mut p0 = cluster.spawn(0, &flags, &["--out", run.to_str().unwrap()]);
    let status = finish(&mut p0);
    finish(&mut p1);
    let err = cluster.stderr(0);
    assert_eq!(status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("process 1") && err.contains("blocked"),
        "{err}"
    );
}

/// A sharded run goes on only with its layout: resumed without
/// `--workers`, or with another count, it is refused in one line (its
/// files are split by the shard count).
#[test]
fn a_sharded_run_resumes_only_with_its_layout() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    let base = ["search", "--quiet", "--enemy", "lovetris", "--width", "200"];
    let first = crate::cli::hatetris(
        &[
            &base[..],
            &[
                "--max-depth",
                "5",
                "--workers",
                "2",
                "--out",
                run.to_str().unwrap(),
            ],
        ]
        .concat(),
        None,
    );
    assert!(first.status.success(), "{}", crate::cli::stderr(&first));
    for (more, says) in [
        (&[][..], "resume it with --workers 2"),
        (&["--workers", "1"][..], "not 1 process × 1 worker"),
    ] {
        let out = crate::cli::hatetris(
            &[
                &[
                    "search",
                    "--quiet",
                    "--max-depth",
                    "8",
                    "--resume",
                    run.to_str().unwrap(),
                ],
                more,
            ]
            .concat(),
            None,
        );
        let err = crate::cli::stderr(&out);
        assert!(!out.status.success(), "{more:?}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{more:?}: {err}");
    }
    let again = crate::cli::hatetris(
        &[
            "search",
            "--quiet",
            "--max-depth",
            "8",
            "--workers",
            "2",
            "--resume",
            run.to_str().unwrap(),
        ],
        None,
    );
    assert!(again.status.success(), "{}", crate::cli::stderr(&again));
    assert!(search::verify(&run).unwrap().is_ok());
}

/// A process started with other settings is refused by process 0: its
/// children would change the result.
#[test]
fn a_process_with_other_settings_is_refused() {
    let cluster = Localhost::new(2);
    let run = cluster.dir.path().join("run");
    let common = ["--enemy", "lovetris", "--max-depth", "5", "--workers", "1"];
    let mut p1 = cluster.spawn(1, &[&common[..], &["--width", "201"]].concat(), &[]);
    let mut p0 = cluster.spawn(
        0,
        &[&common[..], &["--width", "200"]].concat(),
        &["--out", run.to_str().unwrap()],
    );
    let status = finish(&mut p0);
    finish(&mut p1);
    assert_eq!(status.code(), Some(1));
    let err = cluster.stderr(0);
    assert!(
        err.contains("process 1 runs a search with other settings"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `scripts/cluster-run.sh` refuses a setting that is not a whole number,
/// or a hostfile without a process, in one line and before building or
/// starting anything.
#[test]
fn cluster_run_refuses_bad_settings_in_one_line() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/cluster-run.sh");
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("hosts");
    std::fs::write(&hosts, "127.0.0.1:2101\n").unwrap();
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "# nobody\n\n").unwrap();
    let run = dir.path().join("run");
    for (env, hostfile, says) in [
        (
            ("STALL", "soon"),
            &hosts,
            "STALL must be a whole number, not 'soon'",
        ),
        (
            ("PAUSE", "-1"),
            &hosts,
            "PAUSE must be a whole number, not '-1'",
        ),
        (("RETRIES", "3"), &empty, "lists no process"),
    ] {
        let out = Command::new("bash")
            .arg(&script)
            .arg(hostfile)
            .arg(&run)
            .env(env.0, env.1)
            .env("HATETRIS_BIN", "/nonexistent")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{env:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{env:?}: {err}");
        assert!(err.contains(says), "{env:?}: {err}");
        assert!(!run.exists() || std::fs::read_dir(&run).unwrap().next().is_none());
    }
}
