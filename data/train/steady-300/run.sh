#!/bin/sh
# One net's width-100,000 game from the 366-line record's well at piece AT (300 by default), with its history
# (data/train/README.md, "Five nets in the steady state"): sh data/train/steady-300/run.sh NAME NET [THREADS] [AT].
# The run folder is runs/steady-AT-NAME; run again after a kill and it goes on. Prints the search's JSON (the score,
# the best game's depth and replay).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
B=${B:-target/release/hatetris}
name=${1:?a name for the run}; net=${2:?a .nnue net}; threads=${3:-2}; at=${4:-300}
dir=runs/steady-$at-$name
if [ -f "$dir/manifest.json" ]; then
  "$B" search --resume "$dir" --threads "$threads" --json -q
else
  "$B" search --from @data/strength/dnf-366.txt --at "$at" --net "$net" --quiescent --width 100000 \
    --threads "$threads" --out "$dir" --json -q
fi
