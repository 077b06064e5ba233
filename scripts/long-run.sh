#!/usr/bin/env bash
# Launch (or continue) a long beam search on a rented Linux box.
#
#   scripts/long-run.sh RUN_DIR [search flags...]
#   scripts/long-run.sh --print-cron RUN_DIR [search flags...]
#
# - builds with native CPU flags (the binary is then only for this CPU), in
#   $CARGO_TARGET_DIR when that is set, else target/; with HATETRIS_BIN set
#   to a built binary's absolute path, runs that one and builds nothing;
# - starts the search in the background with nohup, logging to RUN_DIR.out,
#   and checks a moment later that it is still running (a bad flag or a
#   folder in use fails here, with the log's last lines);
# - if RUN_DIR already holds a run, continues it with `--resume RUN_DIR`
#   alone: the run's manifest holds every setting, so search flags are only
#   needed for a new run (given with a resume, they must agree with it);
# - prints the crontab line that restarts the job after a reboot
#   (--print-cron prints only that, and starts nothing). Cron runs it with
#   PATH=/usr/bin:/bin and nothing else, where cargo is not found, so the
#   line runs this script again with HATETRIS_BIN naming the binary built
#   now: it resumes the run (or starts it, with the same flags, if it was
#   stopped before its manifest existed) and builds nothing. Every path in
#   it is absolute, so it works from cron's home directory; the script's
#   own lines go to RUN_DIR.cron.log. `tests/long_run.rs` runs the printed
#   line with `env -i PATH=/usr/bin:/bin`.
#
# Everything needed to rebuild the best game stays in RUN_DIR;
# `hatetris status RUN_DIR` shows how far it is, Ctrl-C or `kill PID`
# stops it cleanly (best-replay.txt is written), and
# `hatetris keyframes RUN_DIR` rebuilds the best game at any time.
set -euo pipefail
print_only=false
if [[ ${1:-} == --print-cron ]]; then
  print_only=true
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $0 [--print-cron] RUN_DIR [search flags, e.g. --width 1000000 --quiescent]" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd -P)
mkdir -p "$(dirname "$1")"
dir=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
shift
if [[ -n ${HATETRIS_BIN:-} ]]; then
  case $HATETRIS_BIN in
    /*) bin=$HATETRIS_BIN ;;
    *) echo "HATETRIS_BIN must be an absolute path: $HATETRIS_BIN" >&2; exit 2 ;;
  esac
  if [[ ! -x $bin ]]; then
    echo "HATETRIS_BIN is not an executable file: $bin" >&2
    exit 2
  fi
else
  target=${CARGO_TARGET_DIR:-$repo/target}
  case $target in /*) ;; *) target=$repo/$target ;; esac
  bin=$target/release/hatetris
  if ! $print_only; then
    (cd "$repo" && RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$target" cargo build --release)
  fi
fi

# The crontab line: this script again, on the binary built now.
cron_line() {
  printf '@reboot cd %q && HATETRIS_BIN=%q %q %q' "$repo" "$bin" "$repo/scripts/long-run.sh" "$dir"
  if [[ $# -gt 0 ]]; then
    printf ' %q' "$@"
  fi
  printf ' >>%q 2>&1\n' "$dir.cron.log"
}
if $print_only; then
  cron_line "$@"
  exit 0
fi
cd "$repo"
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
cron_line "$@"
