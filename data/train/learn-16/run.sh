#!/bin/sh
# learn-16 (data/train/README.md): learn-15 (half steps, --blend 0.5) with far targets (--far-share 0.5: a
# surviving training beam's target is half way from its best value at piece 10 to its best value at piece 20, the
# life term's horizon, where it lived that long). Generation 0, generation 1's samples and the start net's
# width-100,000 games are learn-14's (the fork copies them); generation 1's targets are made again, since
# learn-14's kept no values at the horizon. Needs runs/learn-14 up to generation 1's samples
# (data/train/learn-14/run.sh). Run from anywhere; run again after a kill: it goes on (GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-16 --fork learn-14 --at 1 --redo targets --far-share 0.5 --blend 0.5 \
  --generations "${GENS:-8}" --threads 2
