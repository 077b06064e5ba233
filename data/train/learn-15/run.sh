#!/bin/sh
# learn-15 (data/train/README.md): learn-14 with half steps (--blend 0.5: each candidate is the champion moved half
# way to its fit) from generation 1's fit on, after the half-step blend of wide.nnue and life-12's fit came closest
# to wide.nnue in the steady-state wide games. Generation 0, generation 1's samples and life-term targets, and the
# start net's width-100,000 games are learn-14's (the fork copies them). Needs runs/learn-14 up to generation 1's
# targets (data/train/learn-14/run.sh). Run from anywhere; run again after a kill: it goes on (GENS=N for N
# generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-15 --fork learn-14 --at 1 --redo fit --blend 0.5 \
  --generations "${GENS:-8}" --threads 2
