//! The sharded search's command-line side (`hatetris search --workers W
//! [--process I --processes N --hostfile FILE]`): the layout from the flags,
//! a serving process's run, and how a dead peer ends a process.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{bail, Context, Result};

use hatetris::distributed::{self, Shard, Topology};

use super::args::SearchArgs;
use super::{note, outln};

/// Where a process other than 0 writes its shards' files: its `--out`.
pub(crate) fn shard_folder(layout: &Topology, a: &SearchArgs) -> Result<PathBuf> {
    if a.resume.is_some() {
        bail!(
            "--resume is process 0's: process {} goes on writing its shards to --out DIR",
            layout.process
        );
    }
    match &a.out {
        Some(dir) => Ok(dir.clone()),
        None => bail!(
            "process {} writes its shards' depth files: give it --out DIR (process 0's run folder on a shared path, or a folder of its own)",
            layout.process
        ),
    }
}

/// A process other than 0: serves process 0's run until it ends, writing
/// its shards' files.
pub(crate) fn serve(
    layout: &Topology,
    shard: Shard,
    a: &SearchArgs,
    out: &mut dyn Write,
) -> Result<()> {
    if !a.quiet {
        note!(
            "process {} of {}: {} workers, serving the run of process 0 at {}; shards {}-{} written to {}",
            layout.process,
            layout.processes(),
            layout.workers,
            layout.addresses[0],
            layout.process * layout.workers,
            (layout.process + 1) * layout.workers - 1,
            shard.out.as_deref().unwrap_or(std::path::Path::new("?")).display()
        );
    }
    distributed::serve(layout, shard)?;
    outln!(out, "process {}: process 0 ended the run", layout.process)?;
    Ok(())
}

/// The sharded search's layout from `--workers`, `--process`,
/// `--processes` and `--hostfile` (`None`: today's kernel).
pub(crate) fn layout_arg(a: &SearchArgs) -> Result<Option<Topology>> {
    let cluster = a.process.is_some() || a.processes.is_some() || a.hostfile.is_some();
    let workers = match (a.workers, cluster) {
        (None, false) => return Ok(None),
        (Some(0), _) => bail!("--workers must be at least 1"),
        (w, _) => w.unwrap_or(1),
    };
    let mut addresses = match &a.hostfile {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let lines: Vec<String> = text
                .lines()
                .map(|l| l.split('#').next().unwrap_or("").trim())
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
            let address = |l: &str| {
                l.rsplit_once(':')
                    .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok())
            };
            if let Some(bad) = lines.iter().find(|l| !address(l)) {
                bail!("{}: `{bad}` is not host:port", path.display());
            }
            if lines.is_empty() {
                bail!("{} lists no process", path.display());
            }
            lines
        }
        None => (0..a.processes.unwrap_or(1))
            .map(|i| format!("127.0.0.1:{}", 2101 + i))
            .collect(),
    };
    match a.processes {
        Some(0) => bail!("--processes must be at least 1"),
        Some(n) if n != addresses.len() => bail!(
            "--processes {n} disagrees with the hostfile's {} processes",
            addresses.len()
        ),
        _ => {}
    }
    let process = a.process.unwrap_or(0);
    if process >= addresses.len() {
        bail!(
            "--process {process} is not among the {} processes (numbered from 0)",
            addresses.len()
        );
    }
    if addresses.len() == 1 {
        addresses.clear();
    }
    Ok(Some(Topology {
        workers,
        process,
        addresses,
    }))
}

/// With several processes, a process that dies makes timely's threads in
/// the others panic ("timely communication error"), and timely's own
/// guards then panic again while they unwind. So the first panic ends the
/// process at once with one line and exit code 1, as a kill would: every
/// file of the run is written atomically, the depth in progress is
/// abandoned, and a resume of every process goes on from the last
/// complete depth, to the same files.
pub(crate) fn end_on_worker_panic() {
    static SAID: AtomicBool = AtomicBool::new(false);
    std::panic::set_hook(Box::new(|info| {
        // The first panic says why and ends the process; another thread's
        // (timely's guards, unwinding) waits for it, so that it cannot end
        // the process before the line is out.
        if SAID.swap(true, Ordering::Relaxed) {
            loop {
                std::thread::park();
            }
        }
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a worker failed".to_string());
        note!(
            "hatetris: the cluster stopped ({what}); to go on, start every process again, process 0 with --resume DIR"
        );
        std::process::exit(1);
    }));
}
