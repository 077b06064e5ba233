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
use crate::util::depth_files;

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

/// The history snapshots a run folder holds (`ancestry-NNNNN.bin`: the
/// last few depths'), by name.
fn snapshot_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("ancestry-")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// Options that shard each depth of `search` over `workers` workers of this
/// process (`evaluator` is the search's, owned), up to `max_depth`.
fn sharded(
    search: &Search,
    evaluator: Arc<dyn Evaluator + Send>,
    workers: usize,
    max_depth: u32,
) -> hatetris::search::Options {
    let shard = distributed::Shard {
        width: search.width,
        evaluator,
        adversary: search.adversary,
        settings: search.settings().run_id(),
    };
    let mut o = opts(max_depth, 1);
    o.expander = Some(Arc::new(
        distributed::Cluster::start(&distributed::Layout::local(workers), shard).unwrap(),
    ));
    o
}

/// The two run folders hold the same depth files and history snapshots.
fn assert_same_files(a: &Path, b: &Path, what: &str) {
    assert_eq!(depth_files(a), depth_files(b), "{what}");
    assert_eq!(snapshot_files(a), snapshot_files(b), "{what}: the history");
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
        let search = |enemy| Search {
            width,
            evaluator: &follow,
            adversary: search::Adversary::new(enemy),
        };
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
            let o = sharded(&hatetris, Arc::new(Follow::loop_basis()), workers, depths);
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
            let o = sharded(&search, Arc::new(Flat), 2, until);
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
            let o = sharded(&search, Arc::new(Flat), workers, 20);
            search::start(dir.path(), &search, &o, &Silent).unwrap();
            let what = format!("{enemy:?} on {workers} workers");
            assert_same_files(dir.path(), plain.path(), &what);
        }
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

    /// `hatetris search FLAGS --process I --hostfile …` (output to files in
    /// the hostfile's folder), with `tail` (`--out DIR`, `--resume DIR`)
    /// for process 0.
    fn spawn(&self, process: usize, flags: &[&str], tail: &[&str]) -> Child {
        let name = |what: &str| self.dir.path().join(format!("{what}-{process}.txt"));
        Command::new(env!("CARGO_BIN_EXE_hatetris"))
            .arg("search")
            .args(flags)
            .args(["--quiet", "--process", &process.to_string(), "--hostfile"])
            .arg(self.dir.path().join("hosts"))
            .args(if process == 0 { tail } else { &[] })
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
    assert_eq!(depth_files(&run), depth_files(&plain.path().join("run")));
    assert_eq!(
        snapshot_files(&run),
        snapshot_files(&plain.path().join("run"))
    );
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
    while !run.join("depth-00005.beam").exists() {
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
    assert_eq!(depth_files(&run), depth_files(&plain.path().join("run")));
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
