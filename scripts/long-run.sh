#!/usr/bin/env bash
# Launch (or continue) a long beam search on a rented Linux box.
#
#   scripts/long-run.sh RUN_DIR [search flags...]
#
# - builds with native CPU flags (the binary is then only for this CPU);
# - starts the search in the background with nohup, logging to RUN_DIR.out;
# - if RUN_DIR already holds a run, continues it with --resume instead, so the
#   same command restarts the job after a reboot or a crash. To restart it
#   automatically after a reboot, add to root's crontab:
#     @reboot cd /path/to/hatetris-engine && scripts/long-run.sh RUN_DIR --width 1000000
#
# Everything needed to rebuild the best game stays in RUN_DIR; when the run
# ends, RUN_DIR/best-replay.txt holds the Base2048 replay, and
# `target/release/hatetris keyframes RUN_DIR` rebuilds it at any time.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 RUN_DIR [search flags, e.g. --width 1000000 --quiescent]" >&2
  exit 2
fi
dir=$1
shift
cd "$(dirname "$0")/.."
RUSTFLAGS="-C target-cpu=native" cargo build --release
mkdir -p "$(dirname "$dir")"
if [[ -f "$dir/manifest.json" ]]; then
  mode=(--resume "$dir")
else
  mode=(--out "$dir")
fi
nohup target/release/hatetris search "${mode[@]}" "$@" --json >>"$dir.out" 2>&1 &
echo "started pid $! (${mode[0]} $dir); log: $dir.out, per-depth stats: $dir/log.jsonl"
