#!/usr/bin/env bash
# Run one cargo-fuzz target for a while on the stable toolchain, and print its
# final execution count.
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer flags...]
#   scripts/fuzz.sh seeds             # rewrite fuzz/seeds/depth_file
#
# TARGET is one of fuzz/fuzz_targets/*.rs (decode, depth_file, well, weights).
# The seeds kept in git (fuzz/seeds/TARGET/) are copied into the working
# corpus (fuzz/corpus/TARGET/, not kept), which then grows run by run; a
# crash lands in fuzz/artifacts/TARGET/. The last line printed is
#   TARGET: N executions in S s (E exec/s)
# from libFuzzer's final stats; the full output is in fuzz/TARGET.log. The
# exit status is libFuzzer's (non-zero on a finding).
#
# `seeds` regenerates the real depth files the depth_file target starts from
# (needed after a change of the depth-file format: seeds of another version
# are skipped, with a warning, by the target's corruption checks). It runs
# two small searches: depths 0, 2 and 8 of width 200, and depth 4 of width
# 4100 (two blocks). Together about 15 KB.
#
# Builds go to $CARGO_TARGET_DIR if set. On a shared machine, run under
# `nice` with CARGO_BUILD_JOBS=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

if [[ ${1-} == seeds ]]; then
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$root/target}/release/hatetris
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$bin" search --width 200 --max-depth 8 --out "$tmp/a" --quiet >/dev/null
  "$bin" search --width 4100 --max-depth 4 --out "$tmp/b" --quiet >/dev/null
  seeds=fuzz/seeds/depth_file
  rm -f "$seeds"/*.beam
  cp "$tmp/a/depth-00000.beam" "$tmp/a/depth-00002.beam" "$tmp/a/depth-00008.beam" "$seeds/"
  cp "$tmp/b/depth-00004.beam" "$seeds/two-blocks-depth-00004.beam"
  du -cb "$seeds"/*.beam
  exit 0
fi

if [[ $# -lt 2 || ! -f fuzz/fuzz_targets/$1.rs || ! $2 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer flags...]  (TARGET: $(cd fuzz/fuzz_targets && ls ./*.rs | sed 's|^\./||; s|\.rs$||' | tr '\n' ' '))" >&2
  echo "       $0 seeds" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2

cd fuzz
mkdir -p "corpus/$target"
if [[ -d seeds/$target ]]; then
  cp seeds/"$target"/* "corpus/$target/"
fi
log=$target.log
status=0
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "corpus/$target" -- \
  -max_total_time="$seconds" -print_final_stats=1 "$@" >"$log" 2>&1 || status=$?
stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -n 1; }
runs=$(stat number_of_executed_units)
if [[ -z $runs ]]; then
  tail -n 30 "$log" >&2
  echo "$target: no final stats (exit status $status); see fuzz/$log" >&2
  exit $(( status == 0 ? 1 : status ))
fi
elapsed=$(sed -nE 's/^Done [0-9]+ runs in ([0-9]+) second.*/\1/p' "$log" | tail -n 1)
if [[ $status -ne 0 || -z $elapsed ]]; then
  grep -E 'panicked at|^SUMMARY|Test unit written to' "$log" >&2 || true
  echo "$target: stopped on a finding after $runs executions (exit status $status); see fuzz/$log" >&2
  exit $(( status == 0 ? 1 : status ))
fi
echo "$target: $runs executions in $elapsed s ($(stat average_exec_per_sec) exec/s)"
