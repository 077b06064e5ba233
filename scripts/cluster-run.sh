#!/usr/bin/env bash
# Run (or continue) one sharded beam search on several machines.
#
#   scripts/cluster-run.sh HOSTFILE RUN_DIR [search flags...]
#
# HOSTFILE lists one `host:port` per process, process 0 first (blank lines
# and `#` comments are skipped): timely's hostfile, the same file every
# process reads. Run this script on process 0's machine, which holds
# RUN_DIR; the first line should name this machine as the others reach it.
#
# - the binary: $HATETRIS_BIN if set, else this repo's release build (made
#   here, with native CPU flags, in $CARGO_TARGET_DIR or target/) for
#   processes on this machine, and `hatetris` on the PATH of the others
#   (install it there with `cargo install --path .`);
# - every process gets the same search flags (every process must run the
#   same search: process 0 refuses one with other settings) and
#   --workers (default 1; the same on every machine); process 0 gets
#   `--out RUN_DIR`, or `--resume RUN_DIR` when RUN_DIR already holds a run,
#   and every other process `--out RUN_DIR`, the same path on its machine,
#   where its workers write their shards' depth files (RUN_DIR/shard-NNNN);
# - RUN_DIR may be a shared path or a folder per machine: on a restart
#   each worker reads its own shard back. With a folder per machine, copy
#   the others' RUN_DIR here (or every shard-* folder into RUN_DIR) to
#   rebuild the game: `hatetris keyframes RUN_DIR COPY...`;
# - processes on 127.0.0.1 or localhost run here; the others through
#   `ssh -tt HOST` (a closed ssh session ends the remote process), with the
#   hostfile copied to /tmp on that host first;
# - each process logs to RUN_DIR.process-I.log;
# - if the run fails (a machine or a process died: every process then ends
#   with "the cluster stopped"), every process is stopped and all are
#   started again, process 0 with --resume RUN_DIR: the run goes on from the
#   last complete depth, to the same files. At most $RETRIES times (default
#   10), $PAUSE seconds apart (default 10);
# - a stalled cluster is restarted the same way: when no depth has been
#   committed (RUN_DIR/manifest.json unchanged) for $STALL seconds, every
#   process is stopped (SIGTERM, then SIGKILL after $KILL_AFTER seconds,
#   default 30) and all are started again. A process that hangs instead of
#   dying, or a machine that stops answering without closing its
#   connections, would otherwise hold the run forever. Default for $STALL:
#   10 times the longest gap between two commits seen in this attempt, and
#   at least 600 seconds (the first depth after a start also reads the run
#   and waits for every process to connect).
#
# `hatetris status RUN_DIR` shows how far it is; `hatetris keyframes RUN_DIR`
# rebuilds the best game at any time (given every shard's folder).
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 HOSTFILE RUN_DIR [search flags, e.g. --workers 64 --width 10000000 --enemy lovetris]" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd -P)
hostfile=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
mkdir -p "$(dirname "$2")"
dir=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
shift 2
flags=("$@")
retries=${RETRIES:-10}
pause=${PAUSE:-10}
stall=${STALL:-}
kill_after=${KILL_AFTER:-30}
for setting in "RETRIES=$retries" "PAUSE=$pause" "STALL=$stall" "KILL_AFTER=$kill_after"; do
  if ! [[ ${setting#*=} =~ ^[0-9]*$ ]]; then
    echo "$0: ${setting%%=*} must be a whole number, not '${setting#*=}'" >&2
    exit 2
  fi
done

mapfile -t hosts < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$hostfile" | grep -v '^$')
if [[ ${#hosts[@]} -eq 0 ]]; then
  echo "$hostfile lists no process" >&2
  exit 2
fi
case " ${flags[*]} " in *" --workers "*) ;; *) flags+=(--workers 1) ;; esac
case " ${flags[*]} " in *" --quiet "* | *" -q "*) ;; *) flags+=(--quiet) ;; esac

local_bin=${HATETRIS_BIN:-}
remote_bin=${HATETRIS_BIN:-hatetris}
if [[ -z $local_bin ]]; then
  target=${CARGO_TARGET_DIR:-$repo/target}
  case $target in /*) ;; *) target=$repo/$target ;; esac
  (cd "$repo" && RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR="$target" cargo build --release) || exit 1
  local_bin=$target/release/hatetris
fi

is_local() { case ${1%:*} in 127.0.0.1 | localhost) return 0 ;; *) return 1 ;; esac; }

# Starts process $1 in the background; its pid in $started.
start() {
  local i=$1 host=${hosts[$1]} log="$dir.process-$1.log"
  local args=(search "${flags[@]}" --process "$i")
  # Process 0 holds the run; every other process writes its shards' files
  # to the same path on its machine (or the same folder, on a shared path).
  if [[ $i -eq 0 && -f "$dir/manifest.json" ]]; then args+=(--resume "$dir"); else args+=(--out "$dir"); fi
  if is_local "$host"; then
    "$local_bin" "${args[@]}" --hostfile "$hostfile" >>"$log" 2>&1 &
  else
    local remote_hosts=/tmp/hatetris-hosts-$(basename "$dir")
    ssh "${host%:*}" "cat > $remote_hosts" <"$hostfile" || return 1
    ssh -tt "${host%:*}" "$(printf '%q ' "$remote_bin" "${args[@]}" --hostfile "$remote_hosts")" >>"$log" 2>&1 </dev/null &
  fi
  started=$!
}

# The time of the last commit: the manifest's modification time (0 while
# there is none).
committed() { stat -c %Y "$dir/manifest.json" 2>/dev/null || echo 0; }

# Stops every pid given: SIGTERM, then SIGKILL for those still there after
# $kill_after seconds.
stop_all() {
  kill "$@" 2>/dev/null
  local waited=0
  while [[ $waited -lt $kill_after ]]; do
    local alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive -eq 0 ]] && break
    sleep 1
    waited=$((waited + 1))
  done
  kill -KILL "$@" 2>/dev/null
  for pid in "$@"; do wait "$pid" 2>/dev/null; done
}

# Waits for process 0 (pid $1) while watching for a stall; its exit code in
# $status, or 1 after a stall (every process then stopped).
wait_watching() {
  local last now gap longest=0 limit
  last=$(committed)
  local since=$SECONDS
  while kill -0 "$1" 2>/dev/null; do
    sleep 1
    now=$(committed)
    if [[ $now != "$last" ]]; then
      gap=$((SECONDS - since))
      [[ $gap -gt $longest ]] && longest=$gap
      last=$now
      since=$SECONDS
    fi
    limit=${stall:-$((longest * 10 > 600 ? longest * 10 : 600))}
    if [[ $((SECONDS - since)) -ge $limit ]]; then
      echo "no depth committed for ${limit}s: stopping every process" >&2
      stop_all "${pids[@]}"
      status=1
      return
    fi
  done
  wait "$1"
  status=$?
}

attempt=0
while :; do
  pids=()
  for i in "${!hosts[@]}"; do
    start "$i" || { echo "could not start process $i on ${hosts[$i]}" >&2; exit 1; }
    pids+=("$started")
  done
  echo "attempt $((attempt + 1)): ${#hosts[@]} processes (pids ${pids[*]}); logs: $dir.process-*.log"
  wait_watching "${pids[0]}"
  if [[ $status -eq 0 ]]; then
    for pid in "${pids[@]:1}"; do wait "$pid"; done
    echo "the run is complete; the end of process 0's log:"
    tail -n 3 "$dir.process-0.log"
    exit 0
  fi
  stop_all "${pids[@]:1}"
  echo "process 0 ended with exit code $status; the end of its log:" >&2
  tail -n 2 "$dir.process-0.log" >&2
  if [[ $status -eq 130 || ! -f "$dir/manifest.json" ]]; then
    echo "not restarting (interrupted, or the run never began)" >&2
    exit "$status"
  fi
  attempt=$((attempt + 1))
  if [[ $attempt -gt $retries ]]; then
    echo "giving up after $retries restarts" >&2
    exit 1
  fi
  echo "restarting every process in ${pause}s, process 0 with --resume $dir" >&2
  sleep "$pause"
done
