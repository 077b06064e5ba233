#!/bin/sh
# The champion's width-100,000 game from the 366-line record's well at piece AT with the lookahead's cost per
# hypothetical clear set to COST (data/train/README.md, "How the nets rank the records' moves"):
#   sh data/train/chain-step/run.sh COST AT [THREADS] [NET]
# The run folder is runs/steady-AT-cs-COST (NET other than data/nets/wide.nnue: runs/steady-AT-cs-COST-NETNAME);
# run again after a kill and it goes on. Prints the search's JSON (the score, the best game's depth and replay).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
B=${B:-target/release/hatetris}
cost=${1:?a cost per hypothetical clear}; at=${2:?a start piece}; threads=${3:-2}; net=${4:-data/nets/wide.nnue}
dir=runs/steady-$at-cs-$cost
if [ "$net" != data/nets/wide.nnue ]; then dir=$dir-$(basename "$net" .nnue); fi
if [ -f "$dir/manifest.json" ]; then
  "$B" search --resume "$dir" --threads "$threads" --json -q
else
  "$B" search --from @data/strength/dnf-366.txt --at "$at" --net "$net" --quiescent --chain-step-cost "$cost" \
    --width 100000 --threads "$threads" --out "$dir" --json -q
fi
