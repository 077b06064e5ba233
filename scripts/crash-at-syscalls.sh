#!/usr/bin/env bash
# Kills the search at exact system calls, then resumes it, and checks that
# nothing was lost and nothing half-written was taken for good.
#
#   scripts/crash-at-syscalls.sh          (HATETRIS=path/to/hatetris to pick the binary)
#
# Needs strace (its --inject). For each of write, fsync, rename, openat,
# unlink, ftruncate and flock, a clean traced run numbers the calls its main
# thread makes (strace counts per thread; the main thread writes the
# manifest, the log, the replay and depth 0's file, while since session 12
# later depth files are written on the search's pool alongside the next
# expansion and the snapshots on a thread of their own, so those are hit only
# when a kill's call number comes up on their thread first), and the trials kill the search with SIGKILL on entering call number N, for
# several N spread over the count (calls on files outside the run folder are
# skipped: loading libraries is of no interest). Two phases:
#   out     a fresh run (`--out`) killed at call N;
#   resume  a `--resume` of a run stopped cleanly at depth 12 (with a
#           temporary file a kill left planted in it) killed at call N, so
#           the kill falls in a resume's own work: the lock, the removal of
#           temporaries, the checks, the rewritten manifest, the log cut to it.
# After each kill: `--resume` to the end if the folder has a manifest, else
# the folder must hold at most the lock and temporaries and `--out` must
# take it again. Then every depth file must equal the clean run's, the final
# --json line must give the clean run's score, depth and replay,
# `hatetris verify` must exit 0, and no *.tmp-* file may be left. Also,
# `hatetris verify` right after the kill (when there is a manifest) must
# exit 0: what a kill leaves is a note, never a problem.
set -euo pipefail

HATETRIS=${HATETRIS:-target/release/hatetris}
STRACE=${STRACE:-strace}
WIDTH=500
DEPTH=30
SYSCALLS=(write fsync rename openat unlink ftruncate flock)
# Where to kill (see `picks`): a fresh run's calls spread over the run; a
# resume's at its start, where its own work is.
declare -A OUT_AT=(
  [write]="1 2 0.25 0.5 0.75 -1" [fsync]="1 2 0.25 0.5 0.75 -1"
  [rename]="1 2 0.25 0.5 -2 -1" [openat]="/manifest.json.tmp /depth-00000.beam.tmp /log.jsonl 0.5 -1"
  [unlink]="1 0.5 -1" [ftruncate]="1" [flock]="1"
)
declare -A RESUME_AT=(
  [write]="1 2 3" [fsync]="1 2 3 4" [rename]="1 2"
  [openat]="/manifest.json\" /depth-00000.beam /manifest.json.tmp /log.jsonl"
  [unlink]="1 2" [ftruncate]="1" [flock]="1"
)

command -v "$STRACE" >/dev/null || { echo "crash-at-syscalls: needs strace" >&2; exit 2; }
[[ -x $HATETRIS ]] || { echo "crash-at-syscalls: no binary at $HATETRIS (build it, or set HATETRIS)" >&2; exit 2; }
HATETRIS=$(realpath "$HATETRIS")

work=$(mktemp -d /tmp/crash-at-syscalls.XXXXXX)
trap 'rm -rf "$work"' EXIT

search() { # search --out|--resume DIR [more flags]
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" "$@"
}

# The last --json line, without its "out".
final_json() { tail -n 1 "$1" | jq -c 'del(.out)'; }

# The clean run, and its trace.
search --out "$work/clean" >"$work/clean.out"
want_json=$(final_json "$work/clean.out")
(cd "$work/clean" && ls depth-*.beam) >"$work/clean.files"
echo "clean run: $(wc -l <"$work/clean.files") depth files, $want_json" | cut -c1-160

# A run stopped cleanly at depth 12, with a kill's leftover in it: the
# starting point of the resume phase.
"$HATETRIS" search --quiet --threads 1 --width "$WIDTH" --max-depth 12 --out "$work/base12" >/dev/null
printf 'half a file' >"$work/base12/depth-00013.beam.tmp-999999"

trace_set=$(IFS=,; echo "${SYSCALLS[*]}")
"$STRACE" -f -qq -e trace="$trace_set" -o "$work/trace.out" \
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" --out "$work/traced" >/dev/null
cp -r "$work/base12" "$work/traced12"
"$STRACE" -f -qq -e trace="$trace_set" -o "$work/trace.resume" \
  "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" --resume "$work/traced12" >/dev/null

# picks TRACE SYSCALL FOLDER POSITIONS: call numbers of SYSCALL by the main
# thread, each as "N<TAB>call". POSITIONS count among the calls that touch
# the run folder: 1, 2, ... (the first, second, ...), -1, -2 (the last,
# second last), 0.25 (a quarter of the way), or /TEXT (the first call whose
# line holds TEXT).
picks() {
  local trace=$1 sc=$2 folder=$3 positions=$4
  local main
  main=$(head -n 1 "$trace" | cut -d' ' -f1)
  awk -v main="$main" -v sc="$sc" -v folder="$folder" -v positions="$positions" '
    $1 == main && index($2, sc "(") == 1 {
      n++
      if (sc != "openat" || index($0, folder) > 0) { m++; num[m] = n; line[m] = $0 }
    }
    END {
      k = split(positions, at, " ")
      for (j = 1; j <= k; j++) {
        a = at[j]; i = 0
        if (substr(a, 1, 1) == "/") {
          for (x = 1; x <= m; x++) if (index(line[x], substr(a, 2)) > 0) { i = x; break }
        } else if (a + 0 >= 1) i = a + 0
        else if (a + 0 < 0) i = m + 1 + a
        else i = int(m * a) + 1
        if (i < 1 || i > m || (i in seen)) continue
        seen[i] = 1
        c = line[i]; sub(/^[0-9]+ +/, "", c); gsub(/\t/, " ", c)
        print num[i] "\t" substr(c, 1, 90)
      }
    }' "$trace" | sort -n
}

# check DIR LABEL: the folder after the runs to the end, against the clean run.
check() {
  local dir=$1 out=$2
  local f
  if ! (cd "$dir" && ls depth-*.beam) | cmp -s - "$work/clean.files"; then
    echo "depth files differ in number"; return 1
  fi
  while read -r f; do
    cmp -s "$dir/$f" "$work/clean/$f" || { echo "$f differs"; return 1; }
  done <"$work/clean.files"
  [[ $(final_json "$out") == "$want_json" ]] || { echo "final JSON line differs: $(final_json "$out" | cut -c1-80)"; return 1; }
  "$HATETRIS" verify "$dir" >"$work/verify.out" 2>&1 || { echo "verify: $(grep -m1 problem: "$work/verify.out")"; return 1; }
  if compgen -G "$dir/*.tmp-*" >/dev/null; then
    echo "temporaries left: $(cd "$dir" && ls -- *.tmp-*)"; return 1
  fi
  return 0
}

trials=0 ok=0 killed=0 verified_ok=0 verified_n=0
results=()
failures=()
verify_problems=()
# after_kill DIR: the run to the end after a kill, checked; prints the
# result.
after_kill() {
  local dir=$1 mode why stray
  if [[ -f $dir/manifest.json ]]; then
    mode=--resume
  else
    # Killed before the first manifest: at most the lock and temporaries,
    # and --out takes the folder again.
    stray=$( (cd "$dir" 2>/dev/null && ls -A) | grep -v -e '^lock$' -e '\.tmp-' || true)
    if [[ -n $stray ]]; then
      echo "FAIL: no manifest, but $(echo "$stray" | tr '\n' ' ')"
      return 1
    fi
    mode=--out
  fi
  if ! search "$mode" "$dir" >"$work/run.out" 2>"$work/run.err"; then
    echo "FAIL: $mode after the kill: $(head -c 200 "$work/run.err")"
    return 1
  fi
  if ! why=$(check "$dir" "$work/run.out"); then
    echo "FAIL($mode): $why"
    return 1
  fi
  echo "ok ($mode)"
}

run_trial() { # PHASE SYSCALL N WHAT
  local phase=$1 sc=$2 n=$3 what=$4
  local dir="$work/t-$phase-$sc-$n" result status=0 hit="" verified="-"
  local args=(--out "$dir")
  rm -rf "$dir"
  trials=$((trials + 1))
  if [[ $phase == resume ]]; then
    cp -r "$work/base12" "$dir"
    args=(--resume "$dir")
  fi
  # (In a subshell whose stderr is dropped: the shell's own "Killed" notice.)
  (
    "$STRACE" -f -qq -e trace="$sc" -e inject="$sc":signal=SIGKILL:when="$n" -o "$work/inject.out" \
      "$HATETRIS" search --quiet --json --threads 1 --width "$WIDTH" --max-depth "$DEPTH" "${args[@]}" \
      >"$work/run.out" 2>"$work/run.err"
    exit $?
  ) 2>/dev/null || status=$?
  if [[ $status -eq 137 ]] && grep -q "+++ killed by SIGKILL" "$work/inject.out"; then
    killed=$((killed + 1))
    # The call killed on entry: the last one traced, which never returned.
    hit=$(grep -E "^[0-9]+ +$sc\(" "$work/inject.out" | tail -n 1 | sed -E 's/^[0-9]+ +//' | sed "s#$dir/##g; s#$work/##g" | cut -c1-80)
    # `hatetris verify` right after the kill: a kill's leftovers are notes,
    # never problems (recorded in its own column and count).
    if [[ ! -f $dir/manifest.json ]]; then
      verified="-"
    elif "$HATETRIS" verify "$dir" >"$work/verify.out" 2>&1; then
      verified=ok verified_ok=$((verified_ok + 1)) verified_n=$((verified_n + 1))
    else
      verified="PROBLEM" verified_n=$((verified_n + 1))
      verify_problems+=("$phase $sc $n: $(grep '^problem:' "$work/verify.out" | tr '\n' ' ')")
    fi
    if result=$(after_kill "$dir"); then
      ok=$((ok + 1))
    fi
  elif [[ $status -eq 0 ]]; then
    result="FAIL: call $n never reached (exit 0)"
  else
    result="FAIL: exit $status: $(head -c 200 "$work/run.err")"
  fi
  results+=("$(printf '%-7s %-9s %5s  %-7s  %-12s %s' "$phase" "$sc" "$n" "$verified" "$result" "${hit:-$what}")")
  if [[ $result != ok* ]]; then
    failures+=("$phase $sc $n: $result; reproduce: strace -f -e inject=$sc:signal=SIGKILL:when=$n $HATETRIS search --quiet --json --threads 1 --width $WIDTH --max-depth $DEPTH ${args[0]} DIR (resume phase: DIR a run stopped at --max-depth 12), then the same without strace and with --resume")
  fi
  rm -rf "$dir"
}

for phase in out resume; do
  for sc in "${SYSCALLS[@]}"; do
    if [[ $phase == out ]]; then
      list=$(picks "$work/trace.out" "$sc" "$work/traced" "${OUT_AT[$sc]}")
    else
      list=$(picks "$work/trace.resume" "$sc" "$work/traced12" "${RESUME_AT[$sc]}")
    fi
    while IFS=$'\t' read -r n what; do
      [[ -n $n ]] || continue
      run_trial "$phase" "$sc" "$n" "$what"
    done <<<"$list"
  done
done

printf '%-7s %-9s %5s  %-7s  %-12s %s\n' phase syscall N verify result "the call killed"
printf '%s\n' "${results[@]}"
if [[ ${#failures[@]} -gt 0 ]]; then
  printf '%s\n' "${failures[@]}"
fi
if [[ ${#verify_problems[@]} -gt 0 ]]; then
  echo "verify right after the kill reported problems:"
  printf '  %s\n' "${verify_problems[@]}"
fi
echo "crash-at-syscalls: $ok of $trials kills ok ($killed killed at the call); verify right after the kill: $verified_ok of $verified_n ok"
[[ $ok -eq $trials && $verified_ok -eq $verified_n ]]
