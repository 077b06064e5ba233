#!/usr/bin/env bash
# Two processes on one run folder: the second stops at once naming the
# first, and a lock left by a killed process never blocks a resume.
#
#   scripts/two-processes.sh          (HATETRIS=path/to/hatetris to pick the binary)
#
# Each repeat starts a search A in the background (a fresh `--out`, or every
# other time a `--resume` of a run stopped at depth 20), waits until A holds
# the lock (DIR/lock holds its pid) and then a different delay, and starts a
# second `--resume` and a second `--out` on the same folder: each must exit 1
# in under a second with one line saying the folder "is in use by process
# A", leave the lock file as it was and no temporary file. Then A is
# killed with SIGKILL, and a `--resume` (`--out` if A died before its first
# manifest) must run to the end: every depth file equal to a clean run's,
# the final --json line's score, depth and replay equal, verify ok, no
# temporaries. Then three races: two `--out` started together on a new
# folder; one runs, the other stops naming it.
set -euo pipefail

HATETRIS=${HATETRIS:-target/release/hatetris}
WIDTH=3000
DEPTH=60
# Seconds after A holds the lock.
DELAYS=(0 0.05 0.1 0.2 0.3 0.5 0.7 0.9 1.1 1.3 1.5 1.8)

[[ -x $HATETRIS ]] || { echo "two-processes: no binary at $HATETRIS (build it, or set HATETRIS)" >&2; exit 2; }
HATETRIS=$(realpath "$HATETRIS")

work=$(mktemp -d /tmp/two-processes.XXXXXX)
a_pid=""
cleanup() {
  if [[ -n $a_pid ]]; then kill -9 "$a_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

search() { # search --out|--resume DIR [more flags]
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" "$@"
}
final_json() { tail -n 1 "$1" | jq -c 'del(.out)'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

search --out "$work/clean" >"$work/clean.out"
want_json=$(final_json "$work/clean.out")
(cd "$work/clean" && ls depth-*.beam) >"$work/clean.files"
echo "clean run: $(wc -l <"$work/clean.files") depth files, $want_json" | cut -c1-150
"$HATETRIS" search --quiet --threads 1 --width "$WIDTH" --max-depth 20 --out "$work/base20" >/dev/null

# second HOW DIR PID: a second process on DIR while PID holds it; prints the
# result.
second() {
  local how=$1 dir=$2 pid=$3 rc=0 t0 ms lock_before
  lock_before=$(cat "$dir/lock")
  t0=$(now_ms)
  search "$how" "$dir" >"$work/second.out" 2>"$work/second.err" || rc=$?
  ms=$(($(now_ms) - t0))
  if [[ $rc -ne 1 ]]; then
    echo "FAIL: $how exit $rc: $(head -c 200 "$work/second.err")"; return 1
  fi
  if [[ $(wc -l <"$work/second.err") -ne 1 ]] || ! grep -q "is in use by process $pid\$" "$work/second.err"; then
    echo "FAIL: $how said: $(head -c 300 "$work/second.err" | tr '\n' '|')"; return 1
  fi
  if [[ $ms -ge 1000 ]]; then echo "FAIL: $how took ${ms} ms"; return 1; fi
  if [[ $(cat "$dir/lock") != "$lock_before" ]]; then echo "FAIL: $how changed the lock file"; return 1; fi
  # Temporaries of any process but A (whose own come and go).
  if (cd "$dir" && ls -A) | grep '\.tmp-[0-9]*$' | grep -qv "\.tmp-$pid\$"; then
    echo "FAIL: $how left a temporary file"; return 1
  fi
  echo "${ms}ms"
}

finished() { # finished DIR OUT
  local dir=$1 out=$2 f
  (cd "$dir" && ls depth-*.beam) | cmp -s - "$work/clean.files" || { echo "depth files differ in number"; return 1; }
  while read -r f; do
    cmp -s "$dir/$f" "$work/clean/$f" || { echo "$f differs"; return 1; }
  done <"$work/clean.files"
  [[ $(final_json "$out") == "$want_json" ]] || { echo "final JSON line differs"; return 1; }
  "$HATETRIS" verify "$dir" >"$work/verify.out" 2>&1 || { echo "verify: $(grep -m1 problem: "$work/verify.out")"; return 1; }
  if compgen -G "$dir/*.tmp-*" >/dev/null; then echo "temporaries left"; return 1; fi
  return 0
}

rows=() ok=0 n=0 seconds=0
for i in "${!DELAYS[@]}"; do
  delay=${DELAYS[$i]}
  n=$((n + 1))
  dir=$work/run$i
  if ((i % 2 == 1)); then
    cp -r "$work/base20" "$dir"
    first=--resume
  else
    first=--out
  fi
  # (The binary itself, not through `search`: $! must be its pid.)
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" "$first" "$dir" \
    >"$work/a.out" 2>"$work/a.err" &
  a_pid=$!
  # Until A holds the lock (its pid in DIR/lock), then the delay.
  for _ in $(seq 500); do
    [[ $(cat "$dir/lock" 2>/dev/null) == "$a_pid" ]] && break
    sleep 0.01
  done
  sleep "$delay"
  result=""
  if ! kill -0 "$a_pid" 2>/dev/null; then
    result="FAIL: A ended before the second process ($(head -c 200 "$work/a.err"))"
  elif [[ $(cat "$dir/lock" 2>/dev/null) != "$a_pid" ]]; then
    result="FAIL: A ($a_pid) never wrote its pid to the lock"
  elif ! r1=$(second --resume "$dir" "$a_pid"); then
    result=$r1
  elif seconds=$((seconds + 1)) && ! r2=$(second --out "$dir" "$a_pid"); then
    result=$r2
  else
    seconds=$((seconds + 1))
  fi
  if ! kill -0 "$a_pid" 2>/dev/null; then
    result=${result:-"FAIL: A ended before the kill (the second processes took too long?)"}
  fi
  kill -9 "$a_pid" 2>/dev/null || true
  wait "$a_pid" 2>/dev/null || true
  a_pid=""
  killed_at=$(jq '.depth' "$dir/manifest.json" 2>/dev/null || echo none)
  if [[ -z $result ]]; then
    if [[ -f $dir/manifest.json ]]; then mode=--resume; else mode=--out; fi
    if ! search "$mode" "$dir" >"$work/d.out" 2>"$work/d.err"; then
      result="FAIL: $mode after the kill: $(head -c 200 "$work/d.err")"
    elif ! why=$(finished "$dir" "$work/d.out"); then
      result="FAIL: $mode after the kill: $why"
    else
      result="ok (second --resume $r1, second --out $r2; A killed at depth $killed_at; then $mode to the end)"
      ok=$((ok + 1))
    fi
  fi
  rows+=("$(printf '%-3s %-8s %6ss  %s' "$i" "$first" "$delay" "$result")")
  rm -rf "$dir"
done

# Races: two `--out` started together on a new folder. One runs, the other
# stops at once naming it (or "another process", if it came between the
# lock and the pid written into it).
for i in 1 2 3; do
  n=$((n + 1))
  dir=$work/race$i
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" --out "$dir" \
    >"$work/p1.out" 2>"$work/p1.err" &
  p1=$!
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" --out "$dir" \
    >"$work/p2.out" 2>"$work/p2.err" &
  p2=$!
  sleep 1
  result="" winner="" loser="" loser_err=""
  if kill -0 "$p1" 2>/dev/null && ! kill -0 "$p2" 2>/dev/null; then
    winner=$p1 loser=$p2 loser_err=$work/p2.err
  elif kill -0 "$p2" 2>/dev/null && ! kill -0 "$p1" 2>/dev/null; then
    winner=$p2 loser=$p1 loser_err=$work/p1.err
  else
    result="FAIL: not exactly one of the two still running after 1 s"
  fi
  if [[ -n $loser ]]; then
    rc=0
    wait "$loser" || rc=$?
    seconds=$((seconds + 1))
    if [[ $rc -ne 1 || $(wc -l <"$loser_err") -ne 1 ]] ||
      ! grep -Eq "is in use by (process $winner|another process)\$" "$loser_err"; then
      result="FAIL: the loser exited $rc: $(head -c 200 "$loser_err" | tr '\n' '|')"
    fi
  fi
  for p in $p1 $p2; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if [[ -z $result ]]; then
    if [[ -f $dir/manifest.json ]]; then mode=--resume; else mode=--out; fi
    if ! search "$mode" "$dir" >"$work/d.out" 2>"$work/d.err"; then
      result="FAIL: $mode after the kill: $(head -c 200 "$work/d.err")"
    elif ! why=$(finished "$dir" "$work/d.out"); then
      result="FAIL: $mode after the kill: $why"
    else
      result="ok (the loser said: $(sed 's/.* is in use by //' "$loser_err"); winner killed, then $mode to the end)"
      ok=$((ok + 1))
    fi
  fi
  rows+=("$(printf '%-3s %-8s %7s  %s' "r$i" "2× --out" "-" "$result")")
  rm -rf "$dir"
done

printf '%-3s %-8s %7s  %s\n' "#" "A" "delay" result
printf '%s\n' "${rows[@]}"
echo "two-processes: $ok of $n repeats ok ($seconds second processes refused)"
[[ $ok -eq $n ]]
