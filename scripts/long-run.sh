#!/usr/bin/env bash
# Launch (or continue) a long beam search on a rented Linux box.
#
#   scripts/long-run.sh RUN_DIR [search flags...]
#
# - builds with native CPU flags (the binary is then only for this CPU), in
#   $CARGO_TARGET_DIR when that is set, else target/;
# - starts the search in the background with nohup, logging to RUN_DIR.out,
#   and checks a moment later that it is still running (a bad flag or a
#   folder in use fails here, with the log's last lines);
# - if RUN_DIR already holds a run, continues it with `--resume RUN_DIR`
#   alone: the run's manifest holds every setting, so search flags are only
#   needed for a new run (given with a resume, they must agree with it);
# - prints the crontab line that restarts the job after a reboot. Every
#   path in it is absolute, so it works from cron's home directory.
#
# Everything needed to rebuild the best game stays in RUN_DIR;
# `hatetris status RUN_DIR` shows how far it is, Ctrl-C or `kill PID`
# stops it cleanly (best-replay.txt is written), and
# `hatetris keyframes RUN_DIR` rebuilds the best game at any time.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 RUN_DIR [search flags, e.g. --width 1000000 --quiescent]" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$(dirname "$1")"
dir=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
shift
target=${CARGO_TARGET_DIR:-$repo/target}
case $target in /*) ;; *) target=$repo/$target ;; esac
cd "$repo"
RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$target" cargo build --release
bin=$target/release/hatetris
if [[ -f "$dir/manifest.json" ]]; then
  mode=(--resume "$dir")
else
  mode=(--out "$dir")
fi
nohup "$bin" search "${mode[@]}" "$@" --json >>"$dir.out" 2>&1 &
pid=$!
sleep 2
if ! kill -0 "$pid" 2>/dev/null; then
  status=0
  wait "$pid" || status=$?
  if [[ $status -eq 0 ]]; then
    echo "the run in $dir is already complete; the end of $dir.out:"
    tail -n 3 "$dir.out"
    exit 0
  fi
  echo "the search (pid $pid) failed at once (exit code $status); the end of $dir.out:" >&2
  tail -n 5 "$dir.out" >&2
  exit 1
fi
echo "started pid $pid (${mode[0]} $dir); log: $dir.out, per-depth stats: $dir/log.jsonl"
echo "status: $bin status $dir    stop cleanly: kill $pid"
echo "to restart it after a reboot, add this line to the crontab (crontab -e):"
printf '@reboot cd %q && CARGO_TARGET_DIR=%q %q %q\n' "$repo" "$target" "$repo/scripts/long-run.sh" "$dir"
