#!/bin/sh
# learn-14 (data/train/README.md): learn-13 with the life term (training beams go on to piece 20) from its
# generation 1 on: generation 0 (learn-12's candidate, not kept) and generation 1's samples are learn-13's, and
# so are the start net's width-100,000 games from the 366 record's wells (the fork copies them: the same net,
# width, start and search). Needs runs/learn-13 up to generation 1's samples (data/train/learn-13/run.sh). Run from
# anywhere; run again after a kill: it goes on (GENS=N for N generations).
set -e
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root/runs"
B=${B:-../target/release/hatetris}
exec "$B" train learn-14 --fork learn-13 --at 1 --redo targets --life-pieces 20 \
  --generations "${GENS:-8}" --threads 2
